package dev.muster.common.kube;

import com.google.gson.reflect.TypeToken;
import dev.muster.common.tls.TlsSource;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.util.Watch;
import java.io.IOException;
import java.util.Map;

/**
 * One Secret holding TLS material ({@code tls.crt}, {@code tls.key}, {@code ca.crt}), read through the Kubernetes API
 * and watched, so that a process takes up a rotation within about a second of the API server having it rather than
 * when the kubelet next updates the Secret volume (a minute or more later). Lists and watches the one Secret by a
 * {@code metadata.name} field selector, which RBAC authorizes against a rule limited by {@code resourceNames}: the
 * ServiceAccount needs {@code get}, {@code list} and {@code watch} on that Secret only.
 *
 * <p>A deleted Secret, or one the API cannot serve for a while, keeps the data read before in use (said in the log);
 * the watch is opened again after a second.
 *
 * <p>Thread-safe: the data is one immutable snapshot behind a volatile field, written only by the watch thread (and by
 * {@link #start} before that thread runs).
 */
public final class TlsSecretWatch implements TlsSource, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TlsSecretWatch.class.getName());
    /** How long one watch request lasts before it is opened again from where it ended. */
    private static final int WATCH_SECONDS = 300;

    private final ApiClient requests;
    private final ApiClient watches;
    private final String namespace;
    private final String name;
    private final Thread thread;
    private volatile Snapshot snapshot;
    private volatile boolean closed;
    private volatile Watch<V1Secret> open;
    private String resourceVersion; // where the watch thread starts (written before it starts)

    private TlsSecretWatch(ApiClient requests, ApiClient watches, String namespace, String name) {
        this.requests = requests;
        this.watches = watches;
        this.namespace = namespace;
        this.name = name;
        this.thread = Thread.ofPlatform().daemon().name("tls-secret-watch-" + name).unstarted(this::run);
    }

    /**
     * Reads the Secret now (a Secret that cannot be read fails here, saying why) and keeps watching it.
     *
     * @param namespaceAndName {@code NAMESPACE/NAME}, as the flag gives it
     * @throws IllegalStateException naming the Secret and what the API answered (e.g. 403: the RBAC the process lacks)
     */
    public static TlsSecretWatch start(ApiClient requests, ApiClient watches, String namespaceAndName) {
        String[] nn = parse("tls-secret", namespaceAndName);
        TlsSecretWatch w = new TlsSecretWatch(requests, watches, nn[0], nn[1]);
        String rv;
        try {
            rv = w.list();
        } catch (ApiException e) {
            throw new IllegalStateException(w.describe() + " cannot be read through the API (HTTP " + e.getCode() + "): the ServiceAccount needs get,"
                    + " list and watch on it; " + e.getResponseBody(), e);
        }
        if (w.snapshot == null) {
            throw new IllegalStateException(w.describe() + " does not exist (rv " + rv + ")");
        }
        w.resourceVersion = rv;
        w.thread.start();
        return w;
    }

    /**
     * {@code [namespace, name]} from {@code NAMESPACE/NAME}.
     *
     * @throws IllegalArgumentException naming {@code flag} when the value is not of that form
     */
    public static String[] parse(String flag, String namespaceAndName) {
        String v = namespaceAndName == null ? "" : namespaceAndName.strip();
        int slash = v.indexOf('/');
        if (slash <= 0 || slash == v.length() - 1 || v.indexOf('/', slash + 1) >= 0) {
            throw new IllegalArgumentException("--" + flag + ": \"" + v + "\" is not NAMESPACE/NAME of a Secret");
        }
        return new String[] {v.substring(0, slash), v.substring(slash + 1)};
    }

    @Override
    public Snapshot current() {
        return snapshot;
    }

    @Override
    public String describe() {
        return "Secret " + namespace + "/" + name;
    }

    /** Lists the Secret by name; takes up its data; returns the list's resource version to watch from. */
    private String list() throws ApiException {
        V1SecretList list = new CoreV1Api(requests).listNamespacedSecret(namespace).fieldSelector("metadata.name=" + name).execute();
        if (list.getItems().isEmpty()) {
            if (snapshot != null) {
                LOG.log(System.Logger.Level.WARNING, describe() + " is gone; still using the TLS material read before");
            }
        } else {
            take(list.getItems().getFirst());
        }
        return list.getMetadata().getResourceVersion();
    }

    /** Takes up the Secret's data when it differs from what was read before (a new resource version alone is no change). */
    private void take(V1Secret s) {
        Map<String, byte[]> data = s.getData() == null ? Map.of() : s.getData();
        Snapshot before = snapshot;
        if (before == null) {
            snapshot = new Snapshot(s.getMetadata().getResourceVersion(), data);
            return;
        }
        if (same(before.data(), data)) {
            return;
        }
        snapshot = new Snapshot(s.getMetadata().getResourceVersion(), data, before.data(), System.nanoTime());
        LOG.log(System.Logger.Level.INFO, describe() + " changed (resource version " + s.getMetadata().getResourceVersion() + ")");
    }

    private static boolean same(Map<String, byte[]> a, Map<String, byte[]> b) {
        return a.keySet().equals(b.keySet()) && a.entrySet().stream().allMatch(e -> java.util.Arrays.equals(e.getValue(), b.get(e.getKey())));
    }

    private void run() {
        String rv = resourceVersion;
        while (!closed) {
            try {
                if (rv == null) {
                    rv = list();
                }
                rv = watchFrom(rv);
            } catch (ApiException | IOException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "watching " + describe() + ": " + e + "; listing it again in a second");
                rv = null;
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    /** Watches from {@code rv} until the request ends; the version to go on from, or null to list again. */
    private String watchFrom(String rv) throws ApiException, IOException {
        var call = new CoreV1Api(watches).listNamespacedSecret(namespace).fieldSelector("metadata.name=" + name).resourceVersion(rv)
                .allowWatchBookmarks(true).timeoutSeconds(WATCH_SECONDS).watch(true).buildCall(null);
        try (Watch<V1Secret> w = Watch.createWatch(watches, call, new TypeToken<Watch.Response<V1Secret>>() {}.getType())) {
            open = w;
            if (closed) {
                return rv;
            }
            for (Watch.Response<V1Secret> e : w) {
                switch (e.type) {
                    case "ADDED", "MODIFIED" -> take(e.object);
                    case "DELETED" -> LOG.log(System.Logger.Level.WARNING, describe() + " was deleted; still using the TLS material read before");
                    case "BOOKMARK" -> { }
                    default -> {
                        return null; // ERROR (e.g. 410 Gone: too old a version): list again
                    }
                }
                if (e.object != null && e.object.getMetadata() != null && e.object.getMetadata().getResourceVersion() != null) {
                    rv = e.object.getMetadata().getResourceVersion();
                }
            }
            return rv;
        } finally {
            open = null;
        }
    }

    /** Stops watching; the last data read stays readable. */
    @Override
    public void close() {
        closed = true;
        Watch<V1Secret> w = open;
        if (w != null) {
            try {
                w.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        thread.interrupt();
    }
}
