package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeClientsTest {
    private MockKubeApi api;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private Path kubeconfig() throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: %s
                users:
                - name: muster
                  user:
                    token: secret-token
                contexts:
                - name: test
                  context: {cluster: test, user: muster}
                current-context: test
                """.formatted(api.url()));
    }

    @Test
    void kubeconfigClientsAuthenticateAndHaveBoundedTimeoutsExceptForWatches() throws Exception {
        api.server().expect().get().withPath("/api/v1/namespaces/default/pods/p")
                .andReturn(200, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"}}").once();

        KubeClients clients = KubeClients.create(kubeconfig().toString());
        new CoreV1Api(clients.requests()).readNamespacedPod("p", "default").execute();

        RecordedRequest request = api.server().takeRequest(10, TimeUnit.SECONDS);
        assertThat(request.getHeader("Authorization")).isEqualTo("Bearer secret-token");
        assertThat(clients.requests().getReadTimeout()).isEqualTo(KubeClients.READ_SECONDS * 1000);
        assertThat(clients.requests().getConnectTimeout()).isEqualTo(KubeClients.CONNECT_SECONDS * 1000);
        assertThat(clients.watches().getReadTimeout()).as("watches may be silent for minutes").isZero();
        assertThat(clients.watches().getBasePath()).isEqualTo(clients.requests().getBasePath());
    }

    @Test
    void aMissingKubeconfigIsNamed() {
        assertThatThrownBy(() -> KubeClients.create("/nonexistent/kubeconfig"))
                .isInstanceOf(KubeClients.ConfigException.class).hasMessageContaining("kubeconfig /nonexistent/kubeconfig");
    }

    @Test
    void withoutAKubeconfigOutsideAClusterOneMessageSaysWhatIsMissingAndWhatToPass() {
        KubeClients.InCluster nowhere = new KubeClients.InCluster(Map.of(), dir.resolve("serviceaccount"));

        assertThatThrownBy(() -> KubeClients.create(null, nowhere))
                .isInstanceOf(KubeClients.ConfigException.class)
                .hasMessage("no Kubernetes configuration: --kubeconfig is not set and this is not a pod with in-cluster configuration "
                        + "(KUBERNETES_SERVICE_HOST is unset, KUBERNETES_SERVICE_PORT is unset, there is no service-account token at "
                        + dir.resolve("serviceaccount/token") + "); outside a cluster pass --kubeconfig PATH (or set MUSTER_KUBECONFIG)");
        assertThatThrownBy(() -> KubeClients.create("  ", nowhere)).isInstanceOf(KubeClients.ConfigException.class);
    }

    @Test
    void inClusterConfigurationNeedsTheServiceVariablesAndAToken() throws IOException {
        Path serviceAccount = Files.createDirectories(dir.resolve("serviceaccount"));
        Map<String, String> service = Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443");

        assertThat(new KubeClients.InCluster(service, serviceAccount).missing())
                .containsExactly("there is no service-account token at " + serviceAccount.resolve("token"));
        assertThat(new KubeClients.InCluster(Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", " "), serviceAccount)
                .missing()).contains("KUBERNETES_SERVICE_PORT is unset").doesNotContain("KUBERNETES_SERVICE_HOST is unset");

        Files.writeString(serviceAccount.resolve("token"), "token");
        assertThat(new KubeClients.InCluster(service, serviceAccount).missing()).isEmpty();
    }
}
