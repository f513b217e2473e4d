/**
 * ECharts as the dashboard's chart uses it: only the parts it draws with, registered once.
 * Two thirds of the dashboard's weight, so SendsChart.vue loads this module as a chunk of its
 * own (docs/architecture.md, "The console's files").
 */
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import VChart from 'vue-echarts';

use([BarChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export { VChart };
