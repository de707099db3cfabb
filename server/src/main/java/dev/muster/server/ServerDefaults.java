package dev.muster.server;

import java.time.Duration;

/** Defaults of the extender process; flags and env override them (see ServerConfig). */
public final class ServerDefaults {
    public static final String SCHEDULER_NAME = "muster";
    /** Extender verbs (and /healthz, /readyz, /metrics). kube-scheduler's urlPrefix points here. */
    public static final int HTTP_PORT = 8888;
    /** Plain-HTTP /healthz, /readyz, /metrics, for probes and Prometheus even when the verbs use TLS. */
    public static final int OPS_PORT = 8080;
    /** gRPC: Extender, Allocations, health, reflection. */
    public static final int GRPC_PORT = 9090;
    /** How long a gang's reservation waits for its members' binds. kube-scheduler's httpTimeout must exceed it. */
    public static final Duration GANG_DEADLINE = Duration.ofSeconds(60);
    /** How long a gang member's bind is held while its gang cannot be admitted (then kube-scheduler retries it). */
    public static final Duration ADMISSION_HOLD = Duration.ofSeconds(5);
    /**
     * After a CA change, how long the extender presents the old CA's certificate to kube-scheduler at most while a pod of
     * kube-scheduler that trusts only the old CA is left: a Recreate rollout with kube-scheduler's grace period takes
     * well under it, and it is shorter than the time the replaced CA stays trusted ({@code PREVIOUS_CA_GRACE}, 10 min).
     */
    public static final Duration SCHEDULER_CA_HOLD = Duration.ofMinutes(5);
    public static final String SCORING = "binpack";
    public static final String LEASE_NAME = "muster-extender";
    public static final long MAX_BODY_BYTES = 64L * 1024 * 1024;
    public static final int JOURNAL_WINDOW = 65_536;
    /**
     * At most this many pods a second are woken (a status patch each) after Muster's books changed: kube-scheduler's own
     * client defaults to 50 requests a second.
     */
    public static final int WAKES_PER_SECOND = 50;
    /** Pods whose queue-admission gate is lifted per second at most (each a GET and a JSON patch). */
    public static final int LIFTS_PER_SECOND = 100;
    /** Events telling gated pods what their gang waits for, sent per second at most (like kube-scheduler's recorder, paced). */
    public static final int GATE_EVENTS_PER_SECOND = 20;
    /** At most this many pod wakes wait to be sent (the oldest is dropped beyond). */
    public static final int WAKES_PENDING = 10_000;

    /**
     * How long a filter about a pod Muster's informer has not delivered yet waits for it (kube-scheduler's informer may see
     * a new pod a few milliseconds first) before it is answered with an error. kube-scheduler's scheduling loop waits with
     * it, so it is short: only a pod that does not exist costs all of it.
     */
    public static final Duration FILTER_POD_WAIT = Duration.ofSeconds(1);

    private ServerDefaults() {}
}
