package dev.muster.common.ops;

import dev.muster.common.http.Http1Request;
import dev.muster.common.http.Http1Response;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code GET /healthz} (the process answers), {@code GET /readyz} (200 only once the owner says it is
 * ready, e.g. after the first full sync; the body says why not otherwise) and {@code GET /metrics}
 * (Prometheus text format from a {@link CollectorRegistry}). Answers requests for any
 * {@link dev.muster.common.http.Http1Server} handler. Stateless apart from its suppliers; thread-safe.
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

    /** Whether {@code path} is one of these endpoints. */
    public static boolean serves(String path) {
        return path.equals(HEALTHZ) || path.equals(READYZ) || path.equals(METRICS);
    }

    /** The answer to a request for one of these endpoints ({@link #serves}); GET or HEAD only. */
    public Http1Response answer(Http1Request request) {
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return Http1Response.text(405, "method " + request.method() + " not allowed; use GET\n").withHeader("Allow", "GET, HEAD");
        }
        return switch (request.path()) {
            case HEALTHZ -> Http1Response.text(200, "ok\n");
            case READYZ -> {
                String why = notReadyReason.get();
                yield why == null ? Http1Response.text(200, "ok\n") : Http1Response.text(503, "not ready: " + why + "\n");
            }
            case METRICS -> new Http1Response(200, TextFormat.CONTENT_TYPE_004, scrape().getBytes(StandardCharsets.UTF_8));
            default -> Http1Response.text(404, "no such endpoint \"" + request.path() + "\"; try " + HEALTHZ + ", " + READYZ + " or "
                    + METRICS + "\n");
        };
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
}
