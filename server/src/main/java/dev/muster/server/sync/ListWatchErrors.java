package dev.muster.server.sync;

import io.kubernetes.client.openapi.ApiException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs informer list/watch failures readably (one line each) and without flooding: a reflector retries every second, so the same
 * failure is logged when it first appears or changes, and then at most once per {@link #REPEAT}. A 404 on a list
 * names the likely cause (the CRD is not installed), since the first sync, and so readiness, waits for every resource.
 *
 * <p>Thread-safe: state guarded by {@code this}; reflector threads of different resources call it concurrently.
 */
final class ListWatchErrors {
    private static final Logger log = LoggerFactory.getLogger(ClusterSync.class);
    static final Duration REPEAT = Duration.ofMinutes(1);

    private record Last(String message, long atNanos, int suppressed) {}

    private final Map<String, Last> last = new HashMap<>();
    private String latest;
    private final LongSupplier nanoTime;
    private final Consumer<String> out;
    private boolean stopped;

    ListWatchErrors(LongSupplier nanoTime, Consumer<String> out) {
        this.nanoTime = nanoTime;
        this.out = out;
    }

    ListWatchErrors() {
        this(System::nanoTime, log::error);
    }

    /**
     * The informers are being stopped: the list and watch calls they interrupt are not failures, and nothing is
     * logged from now on.
     */
    synchronized void stop() {
        stopped = true;
    }

    /** Records a failure of {@code resource}; returns the line logged, or null when it was suppressed. */
    synchronized String failed(String resource, Throwable t) {
        if (stopped) {
            return null;
        }
        String message = describe(resource, t);
        latest = message;
        long now = nanoTime.getAsLong();
        Last previous = last.get(resource);
        if (previous != null && previous.message().equals(message) && now - previous.atNanos() < REPEAT.toNanos()) {
            last.put(resource, new Last(message, previous.atNanos(), previous.suppressed() + 1));
            return null;
        }
        int suppressed = previous == null ? 0 : previous.suppressed();
        last.put(resource, new Last(message, now, 0));
        String line = message + (suppressed > 0 ? " (" + suppressed + " repeats not logged)" : "");
        out.accept(line);
        return line;
    }

    /** The most recent failure's description, logged or suppressed; null before any. */
    synchronized String latest() {
        return latest;
    }

    static String describe(String resource, Throwable t) {
        if (t instanceof ApiException e && e.getCode() == 404) {
            return "listing " + resource + " failed: 404 Not Found — is the CRD installed? (the Helm chart's crds/ installs "
                    + "Volcano's PodGroup and Queue); the first sync, and readiness, wait for it";
        }
        if (t instanceof ApiException e && (e.getCode() == 401 || e.getCode() == 403)) {
            return "listing/watching " + resource + " failed: HTTP " + e.getCode() + " — check the service account's RBAC "
                    + "(list and watch " + resource + ")";
        }
        if (t instanceof ApiException e && e.getCode() != 0) {
            return "listing/watching " + resource + " failed: HTTP " + e.getCode() + " " + firstLine(e.getResponseBody() != null
                    && !e.getResponseBody().isBlank() ? e.getResponseBody() : e.getMessage());
        }
        Throwable cause = t instanceof ApiException && t.getCause() != null ? t.getCause() : t;
        return "listing/watching " + resource + " failed: " + cause;
    }

    /** client-java's messages span lines (code, body, headers): a log line keeps the first, shortened. */
    private static String firstLine(String text) {
        String line = text == null ? "" : text.strip().lines().findFirst().orElse("");
        return line.length() <= 200 ? line : line.substring(0, 197) + "...";
    }
}
