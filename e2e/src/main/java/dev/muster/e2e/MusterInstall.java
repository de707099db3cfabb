package dev.muster.e2e;

import com.marcnuri.helm.Helm;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Installs charts/muster into the control plane with real Helm (helm-java: CRDs, RBAC, ServiceAccounts, the
 * default Queue; the Deployments never run — there is no kubelet), then gives each Muster process the credentials
 * a pod of that Deployment would have: a token of its own ServiceAccount from the TokenRequest API, in a
 * kubeconfig. Never an admin credential, so the chart's RBAC is what is tested.
 */
public final class MusterInstall {
    public static final String NAMESPACE = "muster-system";
    public static final String RELEASE = "muster";

    /** The chart's gang marker MutatingAdmissionPolicy and its binding, named after the release. */
    public static final String GANG_MARKER = RELEASE + "-gang-marker";
    private static final String POLICY_GROUP = "admissionregistration.k8s.io";
    private static final String POLICY_BINDINGS = "mutatingadmissionpolicybindings";

    private final ControlPlane cp;
    private final Kube admin;
    private Map<String, Object> removedBinding; // what removeGangMarker deleted, until restored

    private MusterInstall(ControlPlane cp) {
        this.cp = cp;
        this.admin = new Kube(cp.adminClient());
    }

    /**
     * {@code helm install muster charts/muster --namespace muster-system --create-namespace}, then waits until the API
     * server applies the chart's gang marker policy (a policy takes effect shortly after it is created).
     */
    public static MusterInstall install(ControlPlane cp, Path chart) {
        return install(cp, chart, Map.of());
    }

    /** {@link #install(ControlPlane, Path)} with {@code values} set ({@code helm install --set key=value}). */
    public static MusterInstall install(ControlPlane cp, Path chart, Map<String, Object> values) {
        var command = new Helm(chart).install().withName(RELEASE).withNamespace(NAMESPACE).createNamespace()
                .withKubeConfig(cp.adminKubeconfig());
        values.forEach(command::set);
        helm(command::call);
        MusterInstall install = new MusterInstall(cp);
        install.awaitGangMarker(true);
        return install;
    }

    /**
     * Runs a call of helm-java's native Helm, one at a time in this JVM (tests on several clusters at once each install
     * or upgrade the chart; the native library is not documented as safe for concurrent calls).
     */
    public static synchronized <T> T helm(java.util.function.Supplier<T> call) {
        return call.get();
    }

    /**
     * Deletes the chart's gang marker policy binding, as on a cluster where it is missing, and waits until the API
     * server no longer marks gang members; {@link #restoreGangMarker} puts it back.
     */
    public void removeGangMarker() {
        Object binding = Kube.call("get gang marker binding", () -> admin.custom().getClusterCustomObject(POLICY_GROUP, "v1",
                POLICY_BINDINGS, GANG_MARKER).execute());
        removedBinding = copyForCreate((Map<?, ?>) binding);
        Kube.call("delete gang marker binding", () -> admin.custom().deleteClusterCustomObject(POLICY_GROUP, "v1", POLICY_BINDINGS, GANG_MARKER).execute());
        awaitGangMarker(false);
    }

    /** Re-creates what {@link #removeGangMarker} deleted and waits until gang members are marked again. */
    public void restoreGangMarker() {
        if (removedBinding == null) {
            return;
        }
        Map<String, Object> binding = removedBinding;
        Kube.call("create gang marker binding", () -> admin.custom().createClusterCustomObject(POLICY_GROUP, "v1", POLICY_BINDINGS, binding).execute());
        removedBinding = null;
        awaitGangMarker(true);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copyForCreate(Map<?, ?> object) {
        Map<String, Object> out = new java.util.LinkedHashMap<>((Map<String, Object>) object);
        Map<String, Object> meta = new java.util.LinkedHashMap<>((Map<String, Object>) out.get("metadata"));
        meta.keySet().retainAll(java.util.Set.of("name", "labels", "annotations"));
        out.put("metadata", meta);
        out.remove("status");
        return out;
    }

    /**
     * Waits (at most 60 s) until a gang member created for Muster's scheduler comes back from the API server with
     * ({@code marked}) or without {@code muster.dev/gang} in its requests — asked with dry-run creations, nothing stored.
     */
    private void awaitGangMarker(boolean marked) {
        String ns = "muster-policy-probe";
        if (Kube.call("list namespaces", () -> admin.core().listNamespace().execute()).getItems().stream()
                .noneMatch(n -> ns.equals(n.getMetadata().getName()))) {
            admin.namespace(ns);
        }
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
        while (true) {
            V1Pod probe = Kube.call("dry-run gang member", () -> admin.core().createNamespacedPod(ns, Kube.podObject(ns, "probe", "g", "1m", "1Mi",
                    Kube.SCHEDULER_NAME, null)).dryRun("All").execute());
            if (Kube.gangMarked(probe) == marked) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the chart's gang marker policy " + (marked ? "did not mark" : "still marks")
                        + " a gang member after 60 s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** A kubeconfig with a fresh token of the chart's ServiceAccount for {@code component} (extender, controller, scheduler). */
    public Path kubeconfigFor(String component) {
        return kubeconfigFor(component, component);
    }

    /**
     * A kubeconfig file {@code <file>.kubeconfig} with a fresh token of {@code component}'s ServiceAccount: two replicas
     * of one Deployment each have their own token of the same ServiceAccount.
     */
    public Path kubeconfigFor(String component, String file) {
        V1ServiceAccount sa = serviceAccount(component);
        String name = sa.getMetadata().getName();
        AuthenticationV1TokenRequest answer = Kube.call("token request for " + name, () -> admin.core()
                .createNamespacedServiceAccountToken(name, NAMESPACE,
                        new AuthenticationV1TokenRequest().spec(new V1TokenRequestSpec().expirationSeconds(6 * 3600L))).execute());
        return cp.writeKubeconfig(cp.dataDir().resolve(file + ".kubeconfig"), answer.getStatus().getToken());
    }

    /** The bearer token in {@link #kubeconfigFor}'s file (for raw requests in tests). */
    public String tokenFor(String component) {
        V1ServiceAccount sa = serviceAccount(component);
        return Kube.call("token request", () -> admin.core().createNamespacedServiceAccountToken(sa.getMetadata().getName(), NAMESPACE,
                new AuthenticationV1TokenRequest().spec(new V1TokenRequestSpec().expirationSeconds(3600L))).execute()).getStatus().getToken();
    }

    /**
     * The flags of the chart's kube-scheduler Deployment that start with {@code prefix} (e.g. {@code --feature-gates=}),
     * so that the kube-scheduler process a test starts runs with them.
     */
    public List<String> schedulerFlags(String prefix) {
        List<io.kubernetes.client.openapi.models.V1Deployment> found = Kube.call("list deployments", () ->
                new io.kubernetes.client.openapi.apis.AppsV1Api(cp.adminClient()).listNamespacedDeployment(NAMESPACE)
                        .labelSelector("app.kubernetes.io/component=scheduler").execute()).getItems();
        if (found.size() != 1) {
            throw new IllegalStateException("expected one scheduler Deployment in " + NAMESPACE + ", found " + found.size());
        }
        List<String> command = found.getFirst().getSpec().getTemplate().getSpec().getContainers().getFirst().getCommand();
        return command == null ? List.of() : command.stream().filter(f -> f.startsWith(prefix)).toList();
    }

    public V1ServiceAccount serviceAccount(String component) {
        List<V1ServiceAccount> found = Kube.call("list service accounts", () -> admin.core().listNamespacedServiceAccount(NAMESPACE)
                .labelSelector("app.kubernetes.io/component=" + component).execute()).getItems();
        if (found.size() != 1) {
            throw new IllegalStateException("expected one ServiceAccount for " + component + " in " + NAMESPACE + ", found " + found.size());
        }
        return found.getFirst();
    }
}
