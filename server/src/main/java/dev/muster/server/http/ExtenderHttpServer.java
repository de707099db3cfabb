package dev.muster.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.muster.common.ops.HttpServers;
import dev.muster.common.ops.OpsEndpoints;
import dev.muster.server.leader.Leadership;
import dev.muster.server.http.wire.WireEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * kube-scheduler's HTTP extender endpoint: {@code POST /filter, /prioritize, /bind, /preempt}, plus
 * {@code /healthz}, {@code /readyz}, {@code /metrics}. The JDK's HTTP server with one virtual thread per
 * request: kube-scheduler's filter and prioritize calls are serial and small, and the thousands of binds
 * a big gang holds at its barrier each park a virtual thread, not a platform thread. HTTPS when given an
 * {@link SSLContext} (kube-scheduler's {@code enableHTTPS} + {@code tlsConfig}).
 *
 * <p>Guards before any decision: the method must be POST (405), the path a known verb (404), the body
 * within {@code maxBodyBytes} (413), this process the leader (else the request is forwarded to it) and
 * synced (503). None of these touch the ledger.
 *
 * <p>Forwarding takes one hop at most: a forwarded request carries {@value LeaderForwarder#FORWARDED_BY} naming the
 * replica that sent it, and a standby that receives one answers 503 instead of forwarding again, so two replicas
 * that each think the other leads cannot bounce a request until they run out of connections. A standby with no
 * leader to forward to (none known, or the Lease names this replica's own address) answers 503 saying why.
 */
public final class ExtenderHttpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExtenderHttpServer.class.getName());

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ExtenderVerbs verbs;
    private final ExtenderMetrics metrics;
    private final Leadership leadership;
    private final String scheme;
    private final LeaderForwarder forwarder;
    private final Supplier<String> notReadyReason;
    private final long maxBodyBytes;

    /**
     * @param tls            null for plain HTTP
     * @param notReadyReason null when ready to decide, else why not (also what /readyz says)
     */
    public ExtenderHttpServer(InetSocketAddress address, SSLContext tls, ExtenderVerbs verbs, ExtenderMetrics metrics,
                              OpsEndpoints ops, Leadership leadership, LeaderForwarder forwarder,
                              Supplier<String> notReadyReason, long maxBodyBytes) throws IOException {
        this.verbs = verbs;
        this.metrics = metrics;
        this.leadership = leadership;
        this.scheme = tls == null ? "http" : "https";
        this.forwarder = forwarder;
        this.notReadyReason = notReadyReason;
        this.maxBodyBytes = maxBodyBytes;
        server = HttpServers.create(address, tls, 1024);
        ops.mount(server);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            String verb = path.startsWith("/") ? path.substring(1) : path;
            if (!ExtenderRoutes.VERBS.contains(verb)) {
                reply(ex, 404, error("unknown verb \"" + path + "\"; the extender serves POST /"
                        + String.join(", POST /", ExtenderRoutes.VERBS)));
                return;
            }
            if (!"POST".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "POST");
                reply(ex, 405, error("method " + ex.getRequestMethod() + " not allowed on " + path + "; use POST"));
                return;
            }
            ExtenderMetrics.Timer timer = metrics.start(verb, "http");
            byte[] body = readBody(ex);
            if (body == null) {
                timer.done("too-large");
                // the rest of the body stays unread, so this connection cannot carry another request: say so,
                // or a keep-alive client reuses it and its next request meets a closed socket
                ex.getResponseHeaders().set("Connection", "close");
                reply(ex, 413, error("request body exceeds the limit of " + maxBodyBytes + " bytes (--max-body-bytes)"));
                return;
            }
            if (!leadership.leading()) {
                Leadership.Route route = leadership.route();
                String forwardedBy = ex.getRequestHeaders().getFirst(LeaderForwarder.FORWARDED_BY);
                if (forwardedBy != null) {
                    // one hop only: replicas that disagree about the leader must not bounce a request between them
                    timer.done("forward-loop");
                    reply(ex, 503, error("forwarding loop refused: " + forwardedBy + " forwarded this request here as to the leader, but this"
                            + " muster extender (" + leadership.identity() + ") does not lead either (" + route.describe()
                            + "); the replicas disagree about the Lease, retry once it settles"));
                    return;
                }
                Optional<String> url = route.httpUrl(scheme);
                if (url.isEmpty()) {
                    timer.done("no-leader");
                    reply(ex, 503, error("this muster extender is a standby and " + route.problem() + "; retry"));
                    return;
                }
                LeaderForwarder.Forwarded f = forwarder.forward(url.get(), path, body, leadership.identity());
                timer.done("forwarded");
                reply(ex, f.status(), f.body());
                return;
            }
            String why = notReadyReason.get();
            if (why != null) {
                timer.done("not-ready");
                reply(ex, 503, error("muster extender not ready: " + why));
                return;
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
                r = new ExtenderVerbs.Reply(500, error("internal error: " + e), "error");
            }
            timer.done(r.outcome());
            reply(ex, r.status(), r.body());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "client went away: " + e.getMessage());
        }
    }

    /**
     * The body, or null when it is larger than the limit (nothing beyond the limit is buffered). With a
     * Content-Length (kube-scheduler always sends one) the body is read straight into an array of that size: one
     * read, no intermediate buffers and no copy.
     */
    private byte[] readBody(HttpExchange ex) throws IOException {
        String declared = ex.getRequestHeaders().getFirst("Content-Length");
        long length = -1;
        if (declared != null) {
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException ignored) {
                // the server rejects malformed lengths itself; read what comes
            }
        }
        if (length > maxBodyBytes) {
            return null;
        }
        try (InputStream in = ex.getRequestBody()) {
            if (length >= 0) {
                byte[] body = new byte[(int) length];
                int n = in.readNBytes(body, 0, body.length);
                return n == body.length ? body : java.util.Arrays.copyOf(body, n);
            }
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + 1));
            return body.length > maxBodyBytes ? null : body;
        }
    }

    static byte[] error(String message) {
        return WireEncoder.encodeError(message);
    }

    private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }
}
