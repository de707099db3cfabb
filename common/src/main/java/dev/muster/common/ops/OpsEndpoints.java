package dev.muster.common.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code GET /healthz} (the process answers), {@code GET /readyz} (200 only once the owner says it is
 * ready, e.g. after the first full sync; the body says why not otherwise) and {@code GET /metrics}
 * (Prometheus text format from a {@link CollectorRegistry}). Mountable on any JDK {@link HttpServer}.
 * Stateless apart from its suppliers; thread-safe.
 */
public final class OpsEndpoints {
    public static final String HEALTHZ = "/healthz";
    public static final String READYZ = "/readyz";
    public static final String METRICS = "/metrics";

    private final CollectorRegistry registry;
    private final Supplier<String> notReadyReason; // null when ready

    /** {@code notReadyReason} answers null when ready, else a short reason shown by /readyz. */
    public OpsEndpoints(CollectorRegistry registry, Supplier<String> notReadyReason) {
        this.registry = registry;
        this.notReadyReason = notReadyReason;
    }

    public void mount(HttpServer server) {
        server.createContext(HEALTHZ, ex -> answerGet(ex, () -> new Reply(200, "text/plain", "ok\n")));
        server.createContext(READYZ, ex -> answerGet(ex, () -> {
            String why = notReadyReason.get();
            return why == null ? new Reply(200, "text/plain", "ok\n") : new Reply(503, "text/plain", "not ready: " + why + "\n");
        }));
        server.createContext(METRICS, ex -> answerGet(ex, () -> new Reply(200, TextFormat.CONTENT_TYPE_004, scrape())));
    }

    /** The metrics page as text (also handy in tests). */
    public String scrape() {
        StringWriter w = new StringWriter();
        try {
            TextFormat.write004(w, registry.metricFamilySamples());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return w.toString();
    }

    private record Reply(int status, String contentType, String body) {}

    private static void answerGet(HttpExchange ex, Supplier<Reply> reply) throws IOException {
        try (ex) {
            Reply r;
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                r = new Reply(405, "text/plain", "method " + ex.getRequestMethod() + " not allowed; use GET\n");
            } else {
                r = reply.get();
            }
            byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", r.contentType());
            boolean head = "HEAD".equals(ex.getRequestMethod());
            ex.sendResponseHeaders(r.status(), head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }
}
