package dev.muster.common.kube;

import dev.muster.common.tls.CipherOrder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import okhttp3.Call;
import okhttp3.Protocol;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * The two {@link ApiClient}s a Muster process needs, built from one source (a kubeconfig file, the pod's service
 * account, or a plain URL for tests and the embedded cluster):
 *
 * <ul>
 *   <li>{@link #requests()}: bounded timeouts (connect {@value #CONNECT_SECONDS}s, read and write
 *       {@value #READ_SECONDS}s) for ordinary calls — binds, leases, status patches — so that a hung API server
 *       turns into an error the caller retries, never a stuck thread;</li>
 *   <li>{@link #watches()}: the same credentials with no read timeout, for informers, whose watch connections are
 *       legitimately silent for minutes (the server ends them with {@code timeoutSeconds}).</li>
 * </ul>
 *
 * Immutable and thread-safe; ApiClients are safe to share.
 */
public final class KubeClients {
    static final int CONNECT_SECONDS = 10;
    static final int READ_SECONDS = 30;

    private final ApiClient requests;
    private final ApiClient watches;

    private KubeClients(ApiClient requests, ApiClient watches) {
        this.requests = requests;
        this.watches = watches;
    }

    /** Where the pod's service account is mounted. */
    public static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    /**
     * No usable Kubernetes configuration: no kubeconfig and not in a cluster, or a kubeconfig or service account that
     * cannot be read. A configuration error (the processes exit 2 with the message), not a crash.
     */
    public static final class ConfigException extends RuntimeException {
        ConfigException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * What in-cluster configuration needs and where it comes from: {@code KUBERNETES_SERVICE_HOST} and
     * {@code KUBERNETES_SERVICE_PORT} in {@code env}, and a token in {@code serviceAccountDir}.
     */
    public record InCluster(Map<String, String> env, Path serviceAccountDir) {
        public InCluster {
            env = Map.copyOf(env);
            Objects.requireNonNull(serviceAccountDir, "serviceAccountDir");
        }

        /** This process's environment and the standard mount. */
        public static InCluster ofThisProcess() {
            return new InCluster(System.getenv(), SERVICE_ACCOUNT_DIR);
        }

        /** What is missing for in-cluster configuration (empty when nothing is). */
        public List<String> missing() {
            List<String> missing = new ArrayList<>();
            for (String name : List.of("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")) {
                String value = env.get(name);
                if (value == null || value.isBlank()) {
                    missing.add(name + " is unset");
                }
            }
            Path token = serviceAccountDir.resolve("token");
            if (!Files.isReadable(token)) {
                missing.add("there is no service-account token at " + token);
            }
            return missing;
        }
    }

    /**
     * From {@code kubeconfigPath} (its current context) or, when null or blank, the in-cluster service account.
     *
     * @throws ConfigException naming the kubeconfig file, or what in-cluster configuration lacks
     */
    public static KubeClients create(String kubeconfigPath) {
        return create(kubeconfigPath, InCluster.ofThisProcess());
    }

    /** As {@link #create(String)}, with in-cluster configuration looked for in {@code inCluster}. */
    public static KubeClients create(String kubeconfigPath, InCluster inCluster) {
        if (kubeconfigPath != null && !kubeconfigPath.isBlank()) {
            return fromKubeconfig(Path.of(kubeconfigPath));
        }
        List<String> missing = inCluster.missing();
        if (!missing.isEmpty()) {
            throw new ConfigException("no Kubernetes configuration: --kubeconfig is not set and this is not a pod with in-cluster "
                    + "configuration (" + String.join(", ", missing) + "); outside a cluster pass --kubeconfig PATH "
                    + "(or set MUSTER_KUBECONFIG)", null);
        }
        return inCluster();
    }

    public static KubeClients fromKubeconfig(Path kubeconfig) {
        try {
            return new KubeClients(
                    fromKubeconfig(kubeconfig, Duration.ofSeconds(READ_SECONDS)),
                    forWatches(fromKubeconfig(kubeconfig, Duration.ZERO)));
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("kubeconfig " + kubeconfig + ": " + e.getMessage(), e);
        }
    }

    /** From the pod's service account ({@link ClientBuilder#cluster()}); prefer {@link #create}, which checks first. */
    public static KubeClients inCluster() {
        try {
            return new KubeClients(
                    tune(ClientBuilder.cluster().setReadTimeout(Duration.ofSeconds(READ_SECONDS)).build()),
                    forWatches(tune(ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build())));
        } catch (IOException | RuntimeException e) {
            throw new ConfigException("in-cluster Kubernetes config (service account under " + SERVICE_ACCOUNT_DIR
                    + ", KUBERNETES_SERVICE_HOST/PORT): " + e, e);
        }
    }

    /** Unauthenticated plain URL, e.g. a mock API server in tests or the demo's embedded cluster. */
    public static KubeClients forUrl(String baseUrl) {
        Objects.requireNonNull(baseUrl, "baseUrl");
        return new KubeClients(
                tune(new ClientBuilder().setBasePath(baseUrl).setReadTimeout(Duration.ofSeconds(READ_SECONDS)).build()),
                forWatches(tune(new ClientBuilder().setBasePath(baseUrl).setReadTimeout(Duration.ZERO).build())));
    }

    /** For ordinary calls: bounded timeouts. */
    public ApiClient requests() {
        return requests;
    }

    /** For informers (list + watch): no read timeout. */
    public ApiClient watches() {
        return watches;
    }

    /** client-java's name for the kubeconfig/service-account token authentication, as its generated calls use it. */
    private static final String[] AUTH_NAMES = {"BearerToken"};

    /**
     * A request Muster writes itself (its own body or Accept header: the binder's Binding, the informers' protobuf
     * list and watch) through {@code client}'s authentication, TLS and base path, as client-java's generated calls go.
     * {@link ApiClient#buildCall} adds the Authorization header into the header map it is given, so {@code headers} is
     * copied into a mutable map here (an immutable one fails under token authentication).
     *
     * @param query the query parameters ({@link ApiClient#parameterToPair}); handed to the call, not copied
     */
    public static Call call(ApiClient client, String method, String path, List<Pair> query, Object body, Map<String, String> headers)
            throws ApiException {
        return client.buildCall(null, path, method, query, new ArrayList<>(), body, new HashMap<>(headers), new HashMap<>(),
                new HashMap<>(), AUTH_NAMES, null);
    }

    /**
     * The body of a 2xx answer; any other answer becomes an {@link ApiException} with its code and text, named
     * {@code what} (e.g. "list pods").
     */
    static ResponseBody successful(Response response, String what) throws ApiException {
        ResponseBody body = response.body();
        if (!response.isSuccessful()) {
            String text;
            try {
                text = body.string();
            } catch (IOException e) {
                text = "";
            }
            throw new ApiException(what + ": HTTP " + response.code(), response.code(), response.headers().toMultimap(), text);
        }
        return body;
    }

    private static ApiClient fromKubeconfig(Path kubeconfig, Duration readTimeout) throws IOException {
        try (Reader reader = Files.newBufferedReader(kubeconfig, StandardCharsets.UTF_8)) {
            KubeConfig config = KubeConfig.loadKubeConfig(reader);
            config.setFile(kubeconfig.toAbsolutePath().toFile()); // relative certificate paths resolve next to it
            return tune(ClientBuilder.kubeconfig(config).setReadTimeout(readTimeout).build());
        }
    }

    /**
     * Watches over HTTP/1.1, one connection each: over HTTP/2 every event of every watch is copied by okhttp's
     * connection reader thread into a per-stream buffer and handed to the informer's thread, which in the real loop
     * cost the extender more CPU than decoding the events (docs/benchmarks.md); over HTTP/1.1 the informer's thread
     * reads its own socket. A handful of long-lived connections (one per watched resource) is what this costs.
     */
    private static ApiClient forWatches(ApiClient client) {
        client.setHttpClient(client.getHttpClient().newBuilder().protocols(List.of(Protocol.HTTP_1_1)).build());
        return client;
    }

    /** Timeouts, and the cipher asked for first as this JVM's JIT encrypts fastest ({@link CipherOrder}). */
    private static ApiClient tune(ApiClient client) {
        client.setConnectTimeout(CONNECT_SECONDS * 1000);
        client.setWriteTimeout(READ_SECONDS * 1000);
        client.setHttpClient(client.getHttpClient().newBuilder()
                .connectionSpecs(List.of(CipherOrder.forThisJvm().okhttpSpec(), okhttp3.ConnectionSpec.CLEARTEXT)).build());
        return client;
    }
}
