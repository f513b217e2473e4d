/**
 * What a machine's cores allow a dispatcher, from what each part of the work costs in CPU: the
 * ceiling the floor row's ratio is read against (budget-row.ts).
 */
export interface PartsCost {
  /** The dispatcher's CPU per send it accepts, accepting alone. */
  acceptMsPerSend: number;
  /** Its CPU per delivery, delivering alone. */
  deliverMsPerDelivery: number;
  /** The load generator's and the webhook peer's CPU per delivery: they share the cores. */
  othersMsPerDelivery: number;
  deliveriesPerSend: number;
  cores: number;
}

/**
 * The most deliveries a second the cores can carry with every core busy all the time: the
 * CPU each delivery needs, its share of the accept included, against the CPU time the cores
 * give in a second. No thread layout does better; any real one does worse.
 */
export function deliveriesBound(cost: PartsCost): number {
  const perDelivery =
    cost.acceptMsPerSend / cost.deliveriesPerSend +
    cost.deliverMsPerDelivery +
    cost.othersMsPerDelivery;
  if (!(perDelivery > 0) || !(cost.cores > 0)) {
    throw new Error('the parts must cost some CPU, on at least one core');
  }
  return (1000 * cost.cores) / perDelivery;
}
