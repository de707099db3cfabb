package dev.muster.core.gang;

/**
 * The bind of a gang member that could not be admitted when kube-scheduler asked (the gang was backing off,
 * did not fit in muster's view, or its PodGroup was not seen yet). It holds no slot; muster retries the
 * admission with the member pinned to {@code waiter.node()} whenever capacity or the gang changes, until
 * {@code untilNanos}, and then fails the bind — kube-scheduler always requeues a pod whose bind failed,
 * whereas a pod refused at filter may be parked until an unrelated cluster event.
 */
public record HeldBind(BindWaiter waiter, long untilNanos) {}
