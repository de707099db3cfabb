package dev.muster.e2e;

import static dev.muster.e2e.Kube.call;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.util.Map;

/**
 * CustomResourceDefinitions for {@link Kube}: created as given, then waited for until established. Every failure names
 * what was attempted and the server's answer.
 */
final class KubeCrds {
    private final ApiClient client;
    private final CustomObjectsApi custom;

    KubeCrds(ApiClient client, CustomObjectsApi custom) {
        this.client = client;
        this.custom = custom;
    }

    /** Creates the CustomResourceDefinition in {@code yaml} (sent as written: no typed model fills in empty fields) and waits until it is established. */
    @SuppressWarnings("unchecked")
    public void crd(java.nio.file.Path yaml) {
        try {
            crd((Map<String, Object>) new org.yaml.snakeyaml.Yaml().load(java.nio.file.Files.readString(yaml)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Creates the CustomResourceDefinition {@code crd} (sent as given) and waits until it is established. */
    @SuppressWarnings("unchecked")
    public void crd(Map<String, Object> crd) {
        String name = String.valueOf(((Map<String, Object>) crd.get("metadata")).get("name"));
        call("create crd " + name, () -> custom.createClusterCustomObject("apiextensions.k8s.io", "v1", "customresourcedefinitions", crd).execute());
        var api = new io.kubernetes.client.openapi.apis.ApiextensionsV1Api(client);
        long until = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (true) {
            var c = call("read crd", () -> api.readCustomResourceDefinition(name).execute());
            if (c.getStatus() != null && c.getStatus().getConditions() != null && c.getStatus().getConditions().stream()
                    .anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus()))) {
                return;
            }
            if (System.nanoTime() - until > 0) {
                throw new IllegalStateException("crd " + name + " not established after 30 s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
