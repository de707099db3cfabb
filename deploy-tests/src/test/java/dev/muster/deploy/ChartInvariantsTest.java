package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import dev.muster.server.http.ExtenderRoutes;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Properties the rendered chart must have under every value set in {@link Variants}: least-privilege
 * RBAC, hardened containers, consistent wiring of ports, selectors, flags, mounts and Leases, and a
 * scheduler config that agrees with extender-config/.
 */
class ChartInvariantsTest {
    private static final List<String> COMPONENTS = List.of("scheduler", "extender", "controller");

    static Stream<Named<Install>> variants() {
        return Variants.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void rbacGrantsExactlyTheAllowedTable(Install install) {
        Rendered chart = Chart.render(install);
        for (String component : COMPONENTS) {
            String serviceAccount = Tree.string(chart.deployment(component).podSpec(), "serviceAccountName");
            Set<Permission> granted = new HashSet<>();
            Set<String> systemRoles = new HashSet<>();
            for (Manifest binding : bindingsOf(chart, serviceAccount, install.namespace())) {
                String roleKind = Tree.string(binding.body(), "roleRef", "kind");
                String roleName = Tree.string(binding.body(), "roleRef", "name");
                var role = chart.find(roleKind, roleName);
                if (binding.kind().equals("ClusterRoleBinding")) {
                    assertThat(roleKind).as("%s roleRef kind", binding.id()).isEqualTo("ClusterRole");
                }
                if (role.isPresent()) {
                    List<Permission> permissions = Permission.expand(role.get().body());
                    if (permissions.stream().anyMatch(p -> p.resource().equals("leases"))) {
                        assertThat(role.get().kind()).as("%s grants Lease access only in its namespace", role.get().id())
                                .isEqualTo("Role");
                        assertThat(binding.kind()).isEqualTo("RoleBinding");
                    }
                    granted.addAll(permissions);
                } else {
                    systemRoles.add(roleName);
                }
            }
            String lease = leaseName(install, component);
            assertThat(granted).as("permissions of the %s ServiceAccount %s", component, serviceAccount)
                    .containsExactlyInAnyOrderElementsOf(AllowedRbac.renderedRoles(component, lease, evicts(install), gates(install),
                            tlsSecretReadThroughTheApi(install, chart, component), chart.deployment("scheduler").name()));
            assertThat(systemRoles).as("ClusterRoles outside the chart bound to the %s", component)
                    .containsExactlyInAnyOrderElementsOf(AllowedRbac.systemRoles(component));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void rolesUseNoWildcardsAndEveryBindingNamesARenderedServiceAccount(Install install) {
        Rendered chart = Chart.render(install);
        for (Manifest role : roles(chart)) {
            for (Map<String, Object> rule : Tree.maps(role.body(), "rules")) {
                for (String field : List.of("apiGroups", "resources", "verbs", "resourceNames")) {
                    assertThat(Tree.strings(rule, field)).as("%s %s", role.id(), field).doesNotContain("*");
                }
            }
        }
        Set<String> serviceAccounts = new HashSet<>(chart.ofKind("ServiceAccount").stream().map(Manifest::name).toList());
        for (Manifest binding : bindings(chart)) {
            for (Map<String, Object> subject : Tree.maps(binding.body(), "subjects")) {
                assertThat(subject.get("kind")).as("%s subject kind", binding.id()).isEqualTo("ServiceAccount");
                assertThat(serviceAccounts).as("%s subject", binding.id()).contains(Tree.string(subject, "name"));
                assertThat(Tree.string(subject, "namespace")).isEqualTo(install.namespace());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void everyContainerRunsHardened(Install install) {
        Rendered chart = Chart.render(install);
        assertThat(chart.ofKind("Deployment")).hasSize(3);
        for (Manifest deployment : chart.ofKind("Deployment")) {
            assertThat(Tree.at(deployment.podSpec(), "securityContext", "runAsNonRoot")).as(deployment.id()).isEqualTo(true);
            List<Map<String, Object>> containers = new ArrayList<>(deployment.containers());
            containers.addAll(Tree.maps(deployment.podSpec(), "initContainers"));
            for (Map<String, Object> container : containers) {
                String where = deployment.id() + " container " + container.get("name");
                Map<String, Object> sc = Tree.map(container, "securityContext");
                assertThat(sc.get("runAsNonRoot")).as(where + " runAsNonRoot").isEqualTo(true);
                assertThat(sc.get("runAsUser")).as(where + " runAsUser").isInstanceOf(Integer.class).isNotEqualTo(0);
                assertThat(sc.get("readOnlyRootFilesystem")).as(where + " readOnlyRootFilesystem").isEqualTo(true);
                assertThat(sc.get("allowPrivilegeEscalation")).as(where + " allowPrivilegeEscalation").isEqualTo(false);
                assertThat(Tree.strings(sc, "capabilities", "drop")).as(where + " capabilities.drop").containsExactly("ALL");
                assertThat(Tree.list(sc, "capabilities", "add")).as(where + " capabilities.add").isEmpty();
                assertThat(Tree.string(sc, "seccompProfile", "type")).as(where + " seccomp").isEqualTo("RuntimeDefault");
                assertThat(Tree.map(container, "resources", "requests")).as(where + " requests").containsKeys("cpu", "memory");
                assertThat(Tree.map(container, "resources", "limits")).as(where + " limits").containsKey("memory");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void probesUseDeclaredPortsAndTheStandardPaths(Install install) {
        Rendered chart = Chart.render(install);
        for (Manifest deployment : chart.ofKind("Deployment")) {
            Map<String, Object> container = deployment.container();
            for (String probe : List.of("livenessProbe", "readinessProbe")) {
                Map<String, Object> httpGet = Tree.map(container, probe, "httpGet");
                assertThat(httpGet).as("%s %s.httpGet", deployment.id(), probe).isNotEmpty();
                assertThat(declaredPort(container, httpGet.get("port")))
                        .as("%s %s port %s is a declared container port", deployment.id(), probe, httpGet.get("port"))
                        .isNotNull();
            }
            assertThat(Tree.string(container, "livenessProbe", "httpGet", "path")).isEqualTo("/healthz");
            assertThat(Tree.string(container, "readinessProbe", "httpGet", "path")).isEqualTo("/readyz");
            String component = component(deployment);
            if (!component.equals("scheduler")) {
                Object opsPort = declaredPort(container, "ops");
                assertThat(declaredPort(container, Tree.at(container, "readinessProbe", "httpGet", "port")))
                        .as("%s probes the plain-HTTP ops port", deployment.id()).isEqualTo(opsPort);
                assertThat(String.valueOf(opsPort)).isEqualTo(install.value(component + ".opsPort", 8080));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void servicesSelectOneDeploymentAndTargetItsPorts(Install install) {
        Rendered chart = Chart.render(install);
        assertThat(chart.ofKind("Service")).hasSize(2);
        for (Manifest service : chart.ofKind("Service")) {
            Map<String, Object> selector = Tree.map(service.spec(), "selector");
            assertThat(selector).as("%s selector", service.id()).isNotEmpty();
            List<Manifest> selected = chart.ofKind("Deployment").stream()
                    .filter(d -> d.podLabels().entrySet().containsAll(selector.entrySet()))
                    .toList();
            assertThat(selected).as("Deployments selected by %s", service.id()).hasSize(1);
            Map<String, Object> container = selected.get(0).container();
            for (Map<String, Object> port : Tree.maps(service.spec(), "ports")) {
                assertThat(declaredPort(container, port.get("targetPort")))
                        .as("%s port %s targets a port of %s", service.id(), port.get("name"), selected.get(0).id())
                        .isNotNull();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void selectorsMatchPodLabels(Install install) {
        Rendered chart = Chart.render(install);
        for (Manifest deployment : chart.ofKind("Deployment")) {
            Map<String, Object> selector = Tree.map(deployment.spec(), "selector", "matchLabels");
            assertThat(selector).as("%s selector", deployment.id()).isNotEmpty();
            assertThat(deployment.podLabels()).as("%s pod labels", deployment.id()).containsAllEntriesOf(selector);
            for (Manifest other : chart.ofKind("Deployment")) {
                if (other != deployment) {
                    assertThat(other.podLabels().entrySet().containsAll(selector.entrySet()))
                            .as("%s selector also matches %s", deployment.id(), other.id()).isFalse();
                }
            }
        }
        for (Manifest pdb : chart.ofKind("PodDisruptionBudget")) {
            Map<String, Object> selector = Tree.map(pdb.spec(), "selector", "matchLabels");
            assertThat(chart.ofKind("Deployment").stream()
                    .filter(d -> d.podLabels().entrySet().containsAll(selector.entrySet())))
                    .as("Deployments covered by %s", pdb.id()).hasSize(1);
            assertThat(pdb.spec()).as(pdb.id()).containsEntry("maxUnavailable", 1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void processesGetOnlyKnownFlagsAndFilesFromMountedVolumes(Install install) {
        Rendered chart = Chart.render(install);
        for (String component : List.of("extender", "controller")) {
            Manifest deployment = chart.deployment(component);
            Map<String, Object> container = deployment.container();
            Map<String, String> flags = flags(container);
            assertThat(flags.keySet()).as("%s flags", component).isSubsetOf(ProcessFlags.of(component));
            assertThat(flags.get("lease-name")).isEqualTo(leaseName(install, component));
            assertThat(flags.get("lease-namespace")).isEqualTo("$(POD_NAMESPACE)");
            assertThat(flags.get("ops-port")).isEqualTo(String.valueOf(declaredPort(container, "ops")));
            assertThat(flags.get("grpc-port")).isEqualTo(String.valueOf(declaredPort(container, "grpc")));
            List<String> mountPaths = Tree.maps(container, "volumeMounts").stream().map(m -> Tree.string(m, "mountPath")).toList();
            flags.forEach((flag, value) -> {
                if (flag.endsWith("-file")) {
                    assertThat(mountPaths).as("%s --%s=%s lies in a mounted volume", component, flag, value)
                            .anyMatch(path -> value.startsWith(path + "/"));
                }
            });
            assertThat(Tree.maps(container, "env").stream().filter(e -> Tree.at(e, "valueFrom", "fieldRef") != null)
                    .collect(Collectors.toMap(e -> Tree.string(e, "name"),
                            e -> Tree.string(e, "valueFrom", "fieldRef", "fieldPath"))))
                    .as("%s downward API env", component)
                    .containsEntry("POD_NAME", "metadata.name")
                    .containsEntry("POD_NAMESPACE", "metadata.namespace")
                    .containsEntry("POD_IP", "status.podIP");
        }
        assertThat(flags(chart.deployment("extender").container()))
                .containsEntry("scheduler-name", Tree.string(profile(chart), "schedulerName"))
                .containsEntry("http-port", String.valueOf(declaredPort(chart.deployment("extender").container(), "http")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void everyVolumeMountHasAVolumeAndEveryDeploymentAServiceAccount(Install install) {
        Rendered chart = Chart.render(install);
        Set<String> serviceAccounts = new HashSet<>(chart.ofKind("ServiceAccount").stream().map(Manifest::name).toList());
        Set<String> configMaps = new HashSet<>(chart.ofKind("ConfigMap").stream().map(Manifest::name).toList());
        Set<String> usedServiceAccounts = new HashSet<>();
        for (Manifest deployment : chart.ofKind("Deployment")) {
            String sa = Tree.string(deployment.podSpec(), "serviceAccountName");
            assertThat(serviceAccounts).as("%s serviceAccountName", deployment.id()).contains(sa);
            usedServiceAccounts.add(sa);
            Map<String, Map<String, Object>> volumes = new LinkedHashMap<>();
            Tree.maps(deployment.podSpec(), "volumes").forEach(v -> volumes.put(Tree.string(v, "name"), v));
            for (Map<String, Object> mount : Tree.maps(deployment.container(), "volumeMounts")) {
                assertThat(volumes).as("%s mount %s", deployment.id(), mount.get("name")).containsKey(Tree.string(mount, "name"));
            }
            volumes.values().stream().map(v -> Tree.string(v, "configMap", "name")).filter(Objects::nonNull)
                    .forEach(cm -> assertThat(configMaps).as("%s ConfigMap volume", deployment.id()).contains(cm));
        }
        assertThat(usedServiceAccounts).as("one ServiceAccount per component").hasSize(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void leasesAreTheOnesEachComponentIsAllowedToHold(Install install) {
        Rendered chart = Chart.render(install);
        Map<String, Object> election = Tree.map(chart.schedulerConfig(), "leaderElection");
        assertThat(election).containsEntry("leaderElect", true).containsEntry("resourceLock", "leases")
                .containsEntry("resourceName", leaseName(install, "scheduler"))
                .containsEntry("resourceNamespace", install.namespace());
        assertThat(election.get("resourceName")).as("not the default scheduler's Lease").isNotEqualTo("kube-scheduler");
        Set<String> leases = Set.of(leaseName(install, "scheduler"), leaseName(install, "extender"), leaseName(install, "controller"));
        assertThat(leases).as("three distinct Leases").hasSize(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void schedulerConfigIsValidAndItsExtendersMatchExtenderConfig(Install install) {
        Rendered chart = Chart.render(install);
        Map<String, Object> config = chart.schedulerConfig();
        assertThat(config).containsEntry("apiVersion", SchedulerConfigs.API_VERSION).containsEntry("kind", SchedulerConfigs.KIND);
        assertThat(SchedulerConfigs.unknownFields(config)).as("fields kube-scheduler would reject").isEmpty();
        assertThat(Tree.maps(config, "profiles")).hasSize(1);
        assertThat(Tree.string(profile(chart), "schedulerName")).isEqualTo(install.value("scheduler.name", "muster"));

        boolean tls = !Boolean.parseBoolean(install.value("tls.insecureUnauthenticatedVerbs", false));
        boolean gangMarker = Boolean.parseBoolean(install.value("extender.gangMarker", true));
        String file = tls ? "scheduler-config.yaml" : "scheduler-config-insecure.yaml";
        Map<String, Object> fromFile = SchedulerConfigs.load(RepoLayout.find().extenderConfig().resolve(file));
        // extender.gangMarker false: the one entry that binds every pod, made from the file's two
        List<Map<String, Object>> expected = (gangMarker ? SchedulerConfigs.extenders(fromFile)
                : List.of(SchedulerConfigs.oneExtenderBindingEveryPod(fromFile))).stream()
                .map(entry -> expectedEntry(entry, install, chart, tls)).toList();
        List<Map<String, Object>> rendered = SchedulerConfigs.extenders(config);
        assertThat(rendered).as("extender entries vs extender-config/%s (gangMarker %s)", file, gangMarker).isEqualTo(expected);
        for (int i = 0; i < rendered.size(); i++) {
            assertThat(List.copyOf(rendered.get(i).keySet())).as("field order of entry %d vs extender-config/%s", i, file)
                    .isEqualTo(List.copyOf(expected.get(i).keySet()));
        }

        if (tls) {
            Map<String, Object> scheduler = chart.deployment("scheduler").container();
            for (Map<String, Object> extender : rendered) {
                for (String field : List.of("certFile", "keyFile", "caFile")) {
                    String path = Tree.string(extender, "tlsConfig", field);
                    assertThat(Tree.maps(scheduler, "volumeMounts")).as("kube-scheduler mounts the directory of %s", path)
                            .anyMatch(m -> path.startsWith(Tree.string(m, "mountPath") + "/"));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void gangMarkerPolicyIsRenderedExactlyWhenOnlyMarkedPodsBindThroughMuster(Install install) {
        Rendered chart = Chart.render(install);
        boolean gangMarker = Boolean.parseBoolean(install.value("extender.gangMarker", true));
        Map<String, Object> config = chart.schedulerConfig();
        assertThat(flags(chart.deployment("extender").container())).containsEntry("gang-marker", String.valueOf(gangMarker));
        List<Manifest> policyObjects = Stream.concat(chart.ofKind(GangMarkerPolicy.POLICY).stream(),
                chart.ofKind(GangMarkerPolicy.BINDING).stream()).filter(m -> m.name().endsWith("-gang-marker")).toList();
        if (!gangMarker) {
            assertThat(policyObjects).as("no marker, no policy").isEmpty();
            assertThat(SchedulerConfigs.onlyExtender(config)).as("one extender binds every pod")
                    .containsKeys("filterVerb", "bindVerb", "preemptVerb").doesNotContainKey("managedResources");
            return;
        }
        Manifest policy = GangMarkerPolicy.only(policyObjects, GangMarkerPolicy.POLICY);
        Manifest binding = GangMarkerPolicy.only(policyObjects, GangMarkerPolicy.BINDING);
        assertThat(binding.spec()).containsEntry("policyName", policy.name());
        assertThat(GangMarkerPolicy.condition(policy, GangMarkerPolicy.SCHEDULER_CONDITION)).as("pods of this release's profile")
                .isEqualTo(GangMarkerPolicy.schedulerCondition(Tree.string(profile(chart), "schedulerName")));
        // the policy adds exactly the resource the bind entry manages
        List<Map<String, Object>> managed = Tree.maps(SchedulerConfigs.bindExtender(config), "managedResources");
        assertThat(managed).hasSize(1);
        String marker = Tree.string(managed.get(0), "name");
        assertThat(managed.get(0)).containsEntry("ignoredByScheduler", true);
        assertThat(GangMarkerPolicy.applyConfigurations(policy)).singleElement().satisfies(expression -> assertThat(expression)
                .contains("requests: {\"" + marker + "\": \"0\"}", "limits: {\"" + marker + "\": \"0\"}"));
        assertThat(SchedulerConfigs.filterExtender(config)).as("the filter entry sees every pod").doesNotContainKey("managedResources");
        for (Manifest m : policyObjects) {
            assertThat(Tree.map(m.body(), "metadata")).as("%s is cluster-scoped", m.id()).doesNotContainKey("namespace");
            assertThat(Tree.string(m.body(), "metadata", "labels", "app.kubernetes.io/instance")).isEqualTo(install.release());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void controllerDialsTheExtenderServiceGrpcPort(Install install) {
        Rendered chart = Chart.render(install);
        Manifest service = serviceOf(chart, "extender");
        Map<String, Object> grpc = servicePort(service, "grpc");
        assertThat(flags(chart.deployment("controller").container()).get("extender-address"))
                .isEqualTo(service.name() + "." + install.namespace() + ".svc:" + grpc.get("port"));
        assertThat(String.valueOf(grpc.get("port"))).isEqualTo(install.value("extender.grpcPort", 9090));
    }

    // ---- helpers

    /**
     * An extender entry of extender-config/ as {@code install} must render it: only what a value changes on purpose
     * may differ from the file (the Service URL, prioritize and its weight on the filter entry, the node cache, the
     * timeout).
     */
    private static Map<String, Object> expectedEntry(Map<String, Object> fromFile, Install install, Rendered chart, boolean tls) {
        Map<String, Object> expected = new LinkedHashMap<>();
        boolean prioritize = Boolean.parseBoolean(install.value("scheduler.extender.prioritize", false));
        fromFile.forEach((k, v) -> { // the verb and its weight, in kube-scheduler's field order
            expected.put(k, v);
            if (prioritize && k.equals("filterVerb")) {
                expected.put("prioritizeVerb", ExtenderRoutes.PRIORITIZE_VERB);
            } else if (prioritize && k.equals("preemptVerb")) {
                expected.put("weight", Integer.parseInt(install.value("scheduler.extender.weight", 5)));
            }
        });
        expected.put("urlPrefix", expectedExtenderUrl(chart, tls));
        expected.put("nodeCacheCapable", Boolean.parseBoolean(install.value("scheduler.extender.nodeCacheCapable", expected.get("nodeCacheCapable"))));
        expected.put("httpTimeout", install.values().containsKey("scheduler.extender.httpTimeoutSeconds")
                ? install.value("scheduler.extender.httpTimeoutSeconds", null) + "s" : expected.get("httpTimeout"));
        return expected;
    }

    /** urlPrefix that reaches the extender Deployment: its Service, in the release namespace, on the port targeting "http". */
    private static String expectedExtenderUrl(Rendered chart, boolean tls) {
        Manifest service = serviceOf(chart, "extender");
        Map<String, Object> http = servicePort(service, "http");
        assertThat(http.get("targetPort")).isEqualTo("http");
        URI uri = URI.create((tls ? "https" : "http") + "://" + service.name() + "." + chart.install().namespace()
                + ".svc:" + http.get("port"));
        return uri.toString();
    }

    private static Manifest serviceOf(Rendered chart, String component) {
        Map<String, Object> labels = chart.deployment(component).podLabels();
        return chart.ofKind("Service").stream()
                .filter(s -> labels.entrySet().containsAll(Tree.map(s.spec(), "selector").entrySet()))
                .findFirst().orElseThrow(() -> new AssertionError("no Service selects the " + component));
    }

    private static Map<String, Object> servicePort(Manifest service, String name) {
        return Tree.maps(service.spec(), "ports").stream().filter(p -> name.equals(p.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError(service.id() + " has no port " + name));
    }

    private static Map<String, Object> profile(Rendered chart) {
        return Tree.maps(chart.schedulerConfig(), "profiles").get(0);
    }

    private static String component(Manifest deployment) {
        return String.valueOf(deployment.podLabels().get("app.kubernetes.io/component"));
    }

    /**
     * The Secret {@code component} reads its TLS material from through the API (tls.readFromApi, with mTLS): the one its
     * TLS volume mounts; null when it reads the files only.
     */
    private static String tlsSecretReadThroughTheApi(Install install, Rendered chart, String component) {
        String volume = switch (component) {
            case "extender" -> "tls";
            case "controller" -> "extender-client";
            default -> null;
        };
        if (volume == null || Boolean.parseBoolean(install.value("tls.insecureUnauthenticatedVerbs", false))
                || !Boolean.parseBoolean(install.value("tls.readFromApi", true))) {
            return null;
        }
        for (Map<String, Object> v : Tree.maps(chart.deployment(component).podSpec(), "volumes")) {
            if (volume.equals(v.get("name"))) {
                return Tree.string(v, "secret", "secretName");
            }
        }
        throw new AssertionError("the " + component + " mounts no volume " + volume);
    }

    /** The queue-admission gate is on: the extender may patch pods. */
    private static boolean gates(Install install) {
        return Boolean.parseBoolean(install.value("extender.queueGate.enabled", false));
    }

    /** Preemption or reclaim on: the extender may evict. */
    private static boolean evicts(Install install) {
        return Boolean.parseBoolean(install.value("extender.preemption.enabled", true))
                || Boolean.parseBoolean(install.value("extender.preemption.reclaim", true));
    }

    private static String leaseName(Install install, String component) {
        return switch (component) {
            case "scheduler" -> install.value("scheduler.leaderElection.resourceName", "muster-scheduler");
            case "extender" -> install.value("extender.leaderElection.leaseName", "muster-extender");
            case "controller" -> install.value("controller.leaderElection.leaseName", "muster-controller");
            default -> throw new IllegalArgumentException(component);
        };
    }

    /** The containerPort a probe or Service refers to (by name or number), or null when none is declared. */
    private static Object declaredPort(Map<String, Object> container, Object ref) {
        for (Map<String, Object> port : Tree.maps(container, "ports")) {
            if (Objects.equals(port.get("name"), ref) || Objects.equals(port.get("containerPort"), ref)) {
                return port.get("containerPort");
            }
        }
        return null;
    }

    /** "--name=value" args as a map; fails on any other shape or a repeated flag. */
    private static Map<String, String> flags(Map<String, Object> container) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (String arg : Tree.strings(container, "args")) {
            assertThat(arg).as("arg shape").startsWith("--").contains("=");
            String name = arg.substring(2, arg.indexOf('='));
            assertThat(flags.put(name, arg.substring(arg.indexOf('=') + 1))).as("--%s given once", name).isNull();
        }
        return flags;
    }

    private static List<Manifest> roles(Rendered chart) {
        return Stream.concat(chart.ofKind("Role").stream(), chart.ofKind("ClusterRole").stream()).toList();
    }

    private static List<Manifest> bindings(Rendered chart) {
        return Stream.concat(chart.ofKind("RoleBinding").stream(), chart.ofKind("ClusterRoleBinding").stream()).toList();
    }

    private static List<Manifest> bindingsOf(Rendered chart, String serviceAccount, String namespace) {
        return bindings(chart).stream()
                .filter(b -> Tree.maps(b.body(), "subjects").stream().anyMatch(s ->
                        "ServiceAccount".equals(s.get("kind")) && serviceAccount.equals(s.get("name"))
                                && namespace.equals(s.get("namespace"))))
                .toList();
    }
}
