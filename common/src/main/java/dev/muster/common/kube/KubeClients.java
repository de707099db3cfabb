package dev.muster.common.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

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

    /**
     * From {@code kubeconfigPath} (its current context) or, when null or blank, the in-cluster service account
     * ({@code KUBERNETES_SERVICE_HOST} and {@code /var/run/secrets/kubernetes.io/serviceaccount}).
     *
     * @throws UncheckedIOException naming the kubeconfig file or the service account when they cannot be read
     */
    public static KubeClients create(String kubeconfigPath) {
        if (kubeconfigPath == null || kubeconfigPath.isBlank()) {
            return inCluster();
        }
        return fromKubeconfig(Path.of(kubeconfigPath));
    }

    public static KubeClients fromKubeconfig(Path kubeconfig) {
        try {
            return new KubeClients(
                    fromKubeconfig(kubeconfig, Duration.ofSeconds(READ_SECONDS)),
                    fromKubeconfig(kubeconfig, Duration.ZERO));
        } catch (IOException | RuntimeException e) {
            throw new UncheckedIOException("kubeconfig " + kubeconfig + ": " + e.getMessage(),
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    public static KubeClients inCluster() {
        try {
            return new KubeClients(
                    tune(ClientBuilder.cluster().setReadTimeout(Duration.ofSeconds(READ_SECONDS)).build()),
                    tune(ClientBuilder.cluster().setReadTimeout(Duration.ZERO).build()));
        } catch (IOException | RuntimeException e) {
            throw new UncheckedIOException("in-cluster Kubernetes config (service account under "
                    + "/var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST): " + e.getMessage(),
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /** Unauthenticated plain URL, e.g. a mock API server in tests or the demo's embedded cluster. */
    public static KubeClients forUrl(String baseUrl) {
        Objects.requireNonNull(baseUrl, "baseUrl");
        return new KubeClients(
                tune(new ClientBuilder().setBasePath(baseUrl).setReadTimeout(Duration.ofSeconds(READ_SECONDS)).build()),
                tune(new ClientBuilder().setBasePath(baseUrl).setReadTimeout(Duration.ZERO).build()));
    }

    /** For ordinary calls: bounded timeouts. */
    public ApiClient requests() {
        return requests;
    }

    /** For informers (list + watch): no read timeout. */
    public ApiClient watches() {
        return watches;
    }

    private static ApiClient fromKubeconfig(Path kubeconfig, Duration readTimeout) throws IOException {
        try (Reader reader = Files.newBufferedReader(kubeconfig, StandardCharsets.UTF_8)) {
            KubeConfig config = KubeConfig.loadKubeConfig(reader);
            config.setFile(kubeconfig.toAbsolutePath().toFile()); // relative certificate paths resolve next to it
            return tune(ClientBuilder.kubeconfig(config).setReadTimeout(readTimeout).build());
        }
    }

    private static ApiClient tune(ApiClient client) {
        client.setConnectTimeout(CONNECT_SECONDS * 1000);
        client.setWriteTimeout(READ_SECONDS * 1000);
        return client;
    }
}
