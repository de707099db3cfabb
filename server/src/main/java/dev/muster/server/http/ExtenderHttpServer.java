package dev.muster.server.http;

import dev.muster.common.http.Http1Handler;
import dev.muster.common.http.Http1Request;
import dev.muster.common.http.Http1Response;
import dev.muster.common.http.Http1Server;
import dev.muster.common.ops.OpsEndpoints;
import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CertificateFiles;
import dev.muster.server.leader.Leadership;
import dev.muster.server.http.wire.WireEncoder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * kube-scheduler's HTTP extender endpoint: {@code POST /filter, /prioritize, /bind, /preempt}, plus
 * {@code /healthz}, {@code /readyz}, {@code /metrics}. Served by {@link Http1Server}: one thread per
 * keep-alive connection reads each request and answers it itself, so kube-scheduler's serial filter calls meet no
 * thread hand-off (its first connections get platform threads, woken by the kernel alone), and the thousands of binds
 * a big gang holds at its barrier park virtual threads beyond the first few. HTTPS when given {@link CertificateFiles} (kube-scheduler's {@code enableHTTPS} + {@code tlsConfig}), and with
 * their CA file only for clients presenting a certificate that CA signed.
 *
 * <p>Guards before any decision: the method must be POST (405), the path a known verb (404), the body
 * within {@code maxBodyBytes} (413), this process the leader (else the request is forwarded to it) and
 * synced (503). None of these touch the ledger.
 *
 * <p>Who may call the verbs: with client certificates required, only a certificate of the role {@code scheduler}
 * (kube-scheduler), or of the role {@code extender} on a request another replica forwarded (it carries {@value
 * LeaderForwarder#FORWARDED_BY}); a forwarded request from any other certificate, and every other caller (the
 * controller, an operator), get 403 and change nothing ({@link CallerRoles}, {@code --tls-client-roles}).
 *
 * <p>Forwarding takes one hop at most: a forwarded request carries {@value LeaderForwarder#FORWARDED_BY} naming the
 * replica that sent it, and a standby that receives one answers 503 instead of forwarding again, so two replicas
 * that each think the other leads cannot bounce a request until they run out of connections. A standby with no
 * leader to forward to (none known, or the Lease names this replica's own address) answers 503 saying why.
 */
public final class ExtenderHttpServer implements AutoCloseable, Http1Handler {
    private static final System.Logger LOG = System.getLogger(ExtenderHttpServer.class.getName());
    /** Longer than Go's idle timeout for kube-scheduler's keep-alive connections (90 s): the client closes first. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(120);
    /** Open connections at most: above the largest gang (each member's bind holds one at the barrier), bounded memory. */
    static final int MAX_CONNECTIONS = 20_000;
    private static final String JSON = "application/json";
    /** Who may call a verb directly. */
    static final Set<CallerRoles.Role> VERB_CALLERS = Set.of(CallerRoles.Role.SCHEDULER);
    /** Who may send a verb forwarded by another replica. */
    static final Set<CallerRoles.Role> FORWARDING_CALLERS = Set.of(CallerRoles.Role.EXTENDER);

    private final Http1Server server;
    private final ExtenderVerbs verbs;
    private final ExtenderMetrics metrics;
    private final OpsEndpoints ops;
    private final Leadership leadership;
    private final String scheme;
    private final LeaderForwarder forwarder;
    private final Supplier<String> notReadyReason;
    /** Null when clients present no certificate (plain HTTP, or TLS without a client CA): no caller is told apart. */
    private final CallerRoles callers;

    /**
     * @param tls            null for plain HTTP; with a CA file, every client must present a certificate it signed, or its
     *                       TLS handshake fails before a byte of a request is read (kube-scheduler's extender
     *                       {@code tlsConfig} certFile/keyFile)
     * @param notReadyReason null when ready to decide, else why not (also what /readyz says)
     */
    public ExtenderHttpServer(InetSocketAddress address, CertificateFiles tls, ExtenderVerbs verbs, ExtenderMetrics metrics,
                              OpsEndpoints ops, Leadership leadership, LeaderForwarder forwarder,
                              Supplier<String> notReadyReason, long maxBodyBytes) throws IOException {
        this(address, tls, CallerRoles.ANY, verbs, metrics, ops, leadership, forwarder, notReadyReason, maxBodyBytes);
    }

    /**
     * As {@link #ExtenderHttpServer(InetSocketAddress, CertificateFiles, ExtenderVerbs, ExtenderMetrics, OpsEndpoints, Leadership,
     * LeaderForwarder, Supplier, long)}; {@code callers}: which client certificates may call the verbs (with a CA file).
     */
    public ExtenderHttpServer(InetSocketAddress address, CertificateFiles tls, CallerRoles callers, ExtenderVerbs verbs,
                              ExtenderMetrics metrics, OpsEndpoints ops, Leadership leadership, LeaderForwarder forwarder,
                              Supplier<String> notReadyReason, long maxBodyBytes) throws IOException {
        this.callers = tls != null && tls.caFile() != null ? callers : null;
        this.verbs = verbs;
        this.metrics = metrics;
        this.ops = ops;
        this.leadership = leadership;
        this.scheme = tls == null ? "http" : "https";
        this.forwarder = forwarder;
        this.notReadyReason = notReadyReason;
        this.server = new Http1Server("muster-http", address, tls == null ? null : tls.context(true), tls != null && tls.caFile() != null,
                this, maxBodyBytes, IDLE_TIMEOUT, MAX_CONNECTIONS);
    }

    public int port() {
        return server.port();
    }

    /** TLS handshakes refused since start (clients without a certificate the CA signed, or not speaking TLS). */
    public long refusedHandshakes() {
        return server.refusedHandshakes();
    }

    /**
     * {@code muster_extender_connections_total{protocol}}: connections served since start, by the protocol the client
     * chose ({@code h2}: HTTP/2 by ALPN over TLS; {@code http/1.1}). kube-scheduler over TLS speaks HTTP/2, and then
     * this stays at one or two however many binds a gang holds.
     */
    public io.prometheus.client.Collector connectionMetrics() {
        return new io.prometheus.client.Collector() {
            @Override
            public java.util.List<MetricFamilySamples> collect() {
                io.prometheus.client.CounterMetricFamily f = new io.prometheus.client.CounterMetricFamily("muster_extender_connections",
                        "Connections to the extender's verbs port since start, by the protocol the client chose.", java.util.List.of("protocol"));
                f.addMetric(java.util.List.of("h2"), server.http2Connections());
                f.addMetric(java.util.List.of("http/1.1"), server.http1Connections());
                return java.util.List.of(f);
            }
        };
    }

    @Override
    public void close() {
        server.close();
    }

    /**
     * Filter and prioritize on the leader, and the probes, never wait for another request: over HTTP/2 they are
     * answered on the connection's reading thread (kube-scheduler's serial filter calls meet no hand-off). A bind waits
     * for its gang, a preemption for its evictions, a standby for the leader it forwards to: those get threads of their own.
     */
    @Override
    public boolean answersAtOnce(Http1Request request) {
        String path = request.path();
        return OpsEndpoints.serves(path) || (AT_ONCE.contains(verbOf(path)) && leadership.leading());
    }

    private static final Set<String> AT_ONCE = Set.of(ExtenderRoutes.FILTER_VERB, ExtenderRoutes.PRIORITIZE_VERB);

    @Override
    public Http1Response handle(Http1Request request) {
        String path = request.path();
        if (OpsEndpoints.serves(path)) {
            return ops.answer(request);
        }
        String verb = verbOf(path);
        if (!ExtenderRoutes.VERBS.contains(verb)) {
            return json(404, error("unknown verb \"" + path + "\"; the extender serves POST /"
                    + String.join(", POST /", ExtenderRoutes.VERBS)));
        }
        if (!"POST".equals(request.method())) {
            return new Http1Response(405, JSON, Map.of("Allow", "POST"),
                    error("method " + request.method() + " not allowed on " + path + "; use POST"));
        }
        ExtenderMetrics.Timer timer = metrics.start(verb, "http");
        byte[] body = request.body();
        String forwardedBy = request.header(LeaderForwarder.FORWARDED_BY);
        if (callers != null) {
            Set<CallerRoles.Role> wanted = forwardedBy == null ? VERB_CALLERS : FORWARDING_CALLERS;
            if (!callers.allows(request.peer(), wanted)) {
                timer.done("forbidden");
                return json(403, error((forwardedBy == null ? "" : "a forwarded request: ") + callers.describe(request.peer(), wanted)));
            }
        }
        if (!leadership.leading()) {
            Leadership.Route route = leadership.route();
            if (forwardedBy != null) {
                // one hop only: replicas that disagree about the leader must not bounce a request between them
                timer.done("forward-loop");
                return json(503, error("forwarding loop refused: " + forwardedBy + " forwarded this request here as to the leader, but this"
                        + " muster extender (" + leadership.identity() + ") does not lead either (" + route.describe()
                        + "); the replicas disagree about the Lease, retry once it settles"));
            }
            Optional<String> url = route.httpUrl(scheme);
            if (url.isEmpty()) {
                timer.done("no-leader");
                return json(503, error("this muster extender is a standby and " + route.problem() + "; retry"));
            }
            String leaderUrl = url.get();
            // abandoned as soon as the Lease names another leader (a frozen leader must not hold the bind until the timeout)
            LeaderForwarder.Forwarded f = forwarder.forward(leaderUrl, path, body, leadership.identity(),
                    () -> !leadership.leading() && leadership.route().httpUrl(scheme).filter(leaderUrl::equals).isPresent());
            timer.done("forwarded");
            return json(f.status(), f.body());
        }
        String why = notReadyReason.get();
        if (why != null) {
            timer.done("not-ready");
            return json(503, error("muster extender not ready: " + why));
        }
        ExtenderVerbs.Reply r;
        try {
            r = switch (verb) {
                case ExtenderRoutes.FILTER_VERB -> verbs.filter(body);
                case ExtenderRoutes.PRIORITIZE_VERB -> verbs.prioritize(body);
                case ExtenderRoutes.BIND_VERB -> verbs.bind(body);
                default -> verbs.preempt(body);
            };
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "internal error answering " + path, e);
            if (ExtenderRoutes.FILTER_VERB.equals(verb)) {
                metrics.filterErrors().error(FilterErrors.INTERNAL, String.valueOf(e));
            }
            r = new ExtenderVerbs.Reply(500, error("internal error: " + e), "error");
        }
        timer.done(r.outcome());
        return json(r.status(), r.body());
    }

    /** Counted like any refused verb call; the rest of the body is never read (the connection closes). */
    @Override
    public Http1Response bodyTooLarge(Http1Request head, long limit) {
        String verb = verbOf(head.path());
        if (ExtenderRoutes.VERBS.contains(verb)) {
            metrics.start(verb, "http").done("too-large");
        }
        return json(413, error("request body exceeds the limit of " + limit + " bytes (--max-body-bytes)"));
    }

    private static String verbOf(String path) {
        return path.startsWith("/") ? path.substring(1) : path;
    }

    static byte[] error(String message) {
        return WireEncoder.encodeError(message);
    }

    private static Http1Response json(int status, byte[] body) {
        return new Http1Response(status, JSON, body);
    }
}
