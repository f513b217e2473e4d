import {
  Comment,
  defineComponent,
  Fragment,
  h,
  isVNode,
  Text,
  type VNode,
  type VNodeArrayChildren,
  type VNodeChild,
} from 'vue';

/**
 * A list page's table as cards, for a phone (ListPage uses it below 768 px). The cards are fed by
 * the page's own `<el-table>` and `<el-table-column>` declarations, read from the slot's vnodes
 * without mounting the table: each row becomes a card, each column a "label: value" line made by
 * the column's own cell slot (or its prop), so a page declares its columns once and they show on
 * both. Whatever else the slot holds is rendered as it is.
 *
 * A column says how it shows on a card with `data-card`:
 * - `title`: the card's heading, without its label (the name of a channel, a message's title);
 * - `hide`: not on the card (an ID that means nothing on a phone);
 * - `actions`: the buttons along the card's foot; a column fixed to the right is one by default.
 * Selection, index and expand columns never show.
 *
 * The table's `row-click` (or, without one, `row-dblclick`: a phone has no double tap) runs on a
 * tap on the card outside its buttons and links; `row-class-name` classes the card, `row-key`
 * keys it, `empty-text` shows when there are no rows, and the table's `data-testid` names the
 * list of cards, with `data-mode="cards"`.
 */

type Row = Record<string, unknown>;
type Props = Record<string, unknown>;
type CellSlot = (scope: Record<string, unknown>) => VNodeChild;
type RowHandler = (row: Row, column: unknown, event: Event) => void;

interface CardColumn {
  role: 'title' | 'field' | 'actions';
  label: string;
  cell: (row: Row, index: number) => VNodeChild;
}

/** A prop as the template wrote it: `row-key` in kebab case, or `rowKey` from a render function. */
function prop(props: Props | null, camel: string): unknown {
  if (!props) return undefined;
  if (camel in props) return props[camel];
  const kebab = camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return props[kebab];
}

function componentName(node: VNode): string | undefined {
  return typeof node.type === 'object' && node.type !== null && 'name' in node.type
    ? String((node.type as { name?: unknown }).name)
    : undefined;
}

/** The vnodes a slot gave, with fragments (v-for, nested slots) opened and comments (v-if) left out. */
function flatten(children: VNodeArrayChildren | VNodeChild): VNode[] {
  if (Array.isArray(children)) return children.flatMap((child) => flatten(child));
  if (!isVNode(children) || children.type === Comment) return [];
  if (children.type === Fragment) return flatten(children.children as VNodeArrayChildren);
  return [children];
}

function slotOf(node: VNode, name: string): CellSlot | undefined {
  const slots = node.children;
  if (!slots || typeof slots !== 'object' || Array.isArray(slots)) return undefined;
  const slot = (slots as Record<string, unknown>)[name];
  return typeof slot === 'function' ? (slot as CellSlot) : undefined;
}

/** The value at a column's `prop`, which may be a path (`owner.name`), as the table reads it. */
function valueAt(row: Row, path: string): unknown {
  let value: unknown = row;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Row)[key];
  }
  return value;
}

function columnOf(node: VNode): CardColumn | null {
  const props = node.props;
  const type = prop(props, 'type');
  const card = prop(props, 'dataCard');
  if (card === 'hide' || type === 'selection' || type === 'index' || type === 'expand') return null;
  const role =
    card === 'title' || card === 'actions'
      ? card
      : prop(props, 'fixed') === 'right'
        ? 'actions'
        : 'field';
  const slot = slotOf(node, 'default');
  const path = prop(props, 'prop');
  const formatter = prop(props, 'formatter');
  const column = { ...props, property: path };
  const cell = (row: Row, index: number): VNodeChild => {
    if (slot) return slot({ row, $index: index, column });
    const value = typeof path === 'string' ? valueAt(row, path) : undefined;
    if (typeof formatter === 'function') {
      return (formatter as (...args: unknown[]) => VNodeChild)(row, column, value, index);
    }
    return value === null || value === undefined ? '' : String(value);
  };
  return { role, label: String(prop(props, 'label') ?? ''), cell };
}

/** Whether a cell rendered nothing a person would see (an empty credential, a v-if'd tag). */
function blank(content: VNodeChild): boolean {
  if (content === null || content === undefined || content === false || content === '') {
    return true;
  }
  if (Array.isArray(content)) return content.every((child) => blank(child as VNodeChild));
  if (isVNode(content)) {
    if (content.type === Comment) return true;
    if (content.type === Text) return String(content.children ?? '').trim() === '';
    if (content.type === Fragment) return blank(content.children as VNodeChild);
  }
  return false;
}

/** A tap on these inside a card is theirs, not the card's. */
const OWN_CLICKS = 'a, button, input, select, textarea, label, [role="switch"], [role="button"]';

function cards(table: VNode): VNode {
  const props = table.props;
  const rows = (prop(props, 'data') as Row[] | undefined) ?? [];
  const columns = flatten(slotOf(table, 'default')?.({}) ?? [])
    .filter((node) => componentName(node) === 'ElTableColumn')
    .map(columnOf)
    .filter((column): column is CardColumn => column !== null);
  const rowKey = prop(props, 'rowKey');
  const rowClass = prop(props, 'rowClassName');
  const onTap = (prop(props, 'onRowClick') ?? prop(props, 'onRowDblclick')) as
    RowHandler | RowHandler[] | undefined;
  const testid = prop(props, 'dataTestid');

  const keyOf = (row: Row, index: number): PropertyKey =>
    typeof rowKey === 'function'
      ? (rowKey as (row: Row) => PropertyKey)(row)
      : typeof rowKey === 'string'
        ? (valueAt(row, rowKey) as PropertyKey)
        : index;
  const classOf = (row: Row, rowIndex: number): unknown =>
    typeof rowClass === 'function' ? rowClass({ row, rowIndex }) : rowClass;
  const tap = (row: Row) => (event: MouseEvent) => {
    const target = event.target as Element | null;
    if (target?.closest(OWN_CLICKS)) return;
    for (const handler of [onTap].flat()) handler?.(row, null, event);
  };

  if (rows.length === 0) {
    return h(
      'div',
      { class: 'list-cards list-cards--empty muted', 'data-testid': testid, 'data-mode': 'cards' },
      String(prop(props, 'emptyText') ?? ''),
    );
  }
  return h(
    'ul',
    { class: 'list-cards', 'data-testid': testid, 'data-mode': 'cards' },
    rows.map((row, index) => {
      const title = columns.filter((c) => c.role === 'title').map((c) => c.cell(row, index));
      const fields = columns
        .filter((c) => c.role === 'field')
        .map((c) => ({ label: c.label, content: c.cell(row, index) }))
        .filter((field) => !blank(field.content));
      const actions = columns.filter((c) => c.role === 'actions').map((c) => c.cell(row, index));
      return h(
        'li',
        {
          key: keyOf(row, index),
          class: ['list-card', { 'is-tappable': onTap !== undefined }, classOf(row, index)],
          'data-testid': 'list-card',
          onClick: onTap ? tap(row) : undefined,
        },
        [
          title.length ? h('div', { class: 'list-card__title' }, title) : null,
          fields.length
            ? h(
                'dl',
                { class: 'list-card__fields' },
                fields.map((field) =>
                  h('div', { class: 'list-card__field' }, [
                    h('dt', field.label),
                    h('dd', [field.content]),
                  ]),
                ),
              )
            : null,
          actions.length ? h('div', { class: 'list-card__actions' }, actions) : null,
        ],
      );
    }),
  );
}

export default defineComponent({
  name: 'ListCards',
  setup(_, { slots }) {
    return () =>
      flatten(slots.default?.() ?? []).map((node) =>
        componentName(node) === 'ElTable' ? cards(node) : node,
      );
  },
});
