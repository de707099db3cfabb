package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.config.Durations;
import dev.muster.core.resources.ResourceNames;
import dev.muster.server.ServerDefaults;
import dev.muster.server.http.ExtenderRoutes;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every KubeSchedulerConfiguration in extender-config/ agrees with the extender's routes and defaults: one extender
 * entry filters every pod, the other binds only gang members (gang-marker-policy.yaml marks them).
 */
class ExtenderConfigFilesTest {

    /** The KubeSchedulerConfiguration files (scheduler-config*.yaml). */
    static Stream<Named<Path>> configFiles() throws IOException {
        return yamlFiles().filter(f -> f.getName().startsWith("scheduler-config"));
    }

    /** Every YAML file in extender-config/: the configurations and the gang marker policy. */
    static Stream<Named<Path>> yamlFiles() throws IOException {
        try (Stream<Path> files = Files.list(RepoLayout.find().extenderConfig())) {
            List<Path> yaml = files.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml")).sorted().toList();
            return yaml.stream().map(p -> Named.of(p.getFileName().toString(), p));
        }
    }

    @Test
    void thePlainAndTheTlsVariantAndThePolicyExist() throws IOException {
        assertThat(configFiles().map(Named::getName)).containsExactly("scheduler-config-insecure.yaml", "scheduler-config.yaml");
        assertThat(yamlFiles().map(Named::getName)).containsExactlyInAnyOrder(
                "scheduler-config-insecure.yaml", "scheduler-config.yaml", GangMarkerPolicy.file().getFileName().toString(),
                "queue-gate-policy.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void isAKubeSchedulerConfigurationWithOnlyKnownFields(Path file) {
        Map<String, Object> config = SchedulerConfigs.load(file);
        assertThat(config).containsEntry("apiVersion", SchedulerConfigs.API_VERSION).containsEntry("kind", SchedulerConfigs.KIND);
        assertThat(SchedulerConfigs.unknownFields(config)).as("fields kube-scheduler would reject").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void runsOneProfileNamedLikeTheExtenderExpects(Path file) {
        List<Map<String, Object>> profiles = Tree.maps(SchedulerConfigs.load(file), "profiles");
        assertThat(profiles).hasSize(1);
        assertThat(profiles.get(0)).containsEntry("schedulerName", ServerDefaults.SCHEDULER_NAME);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void theProfileTurnsKubeSchedulersOwnGangPluginsOff(Path file) {
        Map<String, Object> profile = Tree.maps(SchedulerConfigs.load(file), "profiles").get(0);
        assertThat(Tree.maps(Tree.map(Tree.map(profile, "plugins"), "multiPoint"), "disabled"))
                .extracting(plugin -> plugin.get("name"))
                .containsExactly("GangScheduling", "TopologyPlacementGenerator", "PodGroupPodsCount");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void electsOnItsOwnLease(Path file) {
        Map<String, Object> election = Tree.map(SchedulerConfigs.load(file), "leaderElection");
        assertThat(election).containsEntry("leaderElect", true).containsEntry("resourceLock", "leases");
        assertThat(Tree.string(election, "resourceName")).isNotBlank().isNotEqualTo("kube-scheduler")
                .isNotEqualTo(ServerDefaults.LEASE_NAME);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void oneEntryFiltersEveryPodAndTheOtherBindsOnlyGangMembersAndNeitherCanBeIgnored(Path file) {
        Map<String, Object> config = SchedulerConfigs.load(file);
        assertThat(SchedulerConfigs.extenders(config)).hasSize(2).allSatisfy(extender -> {
            // An ignorable extender that fails is skipped: without the filter kube-scheduler places pods on room
            // reserved for gangs; without the binder it falls back to its default binder, which would bind gang
            // members one by one past the gang barrier.
            assertThat(extender).containsEntry("ignorable", false);
            assertThat(extender).containsEntry("nodeCacheCapable", true);
        });
        Map<String, Object> filter = SchedulerConfigs.filterExtender(config);
        Map<String, Object> binder = SchedulerConfigs.bindExtender(config);
        assertThat(filter).as("filter entry").isNotSameAs(binder);
        // no prioritize verb: filter passes a member only on its slot's node, kube-scheduler scores single pods
        assertThat(filter).containsKeys("filterVerb", "preemptVerb").doesNotContainKeys("bindVerb", "prioritizeVerb", "weight")
                .as("asked about every pod").doesNotContainKey("managedResources");
        assertThat(binder.keySet()).as("bind entry").filteredOn(k -> k.endsWith("Verb")).containsExactly("bindVerb");
        assertThat(binder).doesNotContainKey("weight");
        // kube-scheduler binds through this entry only pods that request the marker, and does not look for it on nodes
        assertThat(Tree.maps(binder, "managedResources"))
                .containsExactly(Map.of("name", ResourceNames.GANG_MARKER, "ignoredByScheduler", true));
        assertThat(binder.get("urlPrefix")).as("both entries are Muster").isEqualTo(filter.get("urlPrefix"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void everyVerbIsARouteTheExtenderServes(Path file) {
        Map<String, Object> verbs = new LinkedHashMap<>();
        for (Map<String, Object> extender : SchedulerConfigs.extenders(SchedulerConfigs.load(file))) {
            extender.forEach((key, value) -> {
                if (key.endsWith("Verb")) {
                    assertThat(verbs.put(key, value)).as("%s in one entry only", key).isNull();
                }
            });
        }
        assertThat(verbs).isNotEmpty();
        assertThat(verbs.values()).allSatisfy(verb -> assertThat(ExtenderRoutes.VERBS).contains(String.valueOf(verb)));
        assertThat(verbs).containsEntry("filterVerb", ExtenderRoutes.FILTER_VERB)
                .containsEntry("bindVerb", ExtenderRoutes.BIND_VERB)
                .containsEntry("preemptVerb", ExtenderRoutes.PREEMPT_VERB);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void httpTimeoutOutlastsTheGangDeadline(Path file) {
        Map<String, Object> config = SchedulerConfigs.load(file);
        assertThat(SchedulerConfigs.extenders(config)).isNotEmpty().allSatisfy(extender -> {
            Duration timeout = Durations.parse("httpTimeout", Tree.string(extender, "httpTimeout"));
            assertThat(timeout).as("httpTimeout vs the gang deadline a bind may wait").isGreaterThan(ServerDefaults.GANG_DEADLINE);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void urlSchemeAgreesWithEnableHttpsAndTlsNamesACa(Path file) {
        List<Map<String, Object>> extenders = SchedulerConfigs.extenders(SchedulerConfigs.load(file));
        assertThat(extenders).isNotEmpty();
        extenders.forEach(ExtenderConfigFilesTest::assertTransport);
    }

    private static void assertTransport(Map<String, Object> extender) {
        URI url = URI.create(Tree.string(extender, "urlPrefix"));
        boolean https = Boolean.TRUE.equals(extender.get("enableHTTPS"));
        assertThat(url.getScheme()).isEqualTo(https ? "https" : "http");
        assertThat(url.getPort()).isEqualTo(ServerDefaults.HTTP_PORT);
        assertThat(url.getHost()).as("the chart's extender Service in the default install")
                .isEqualTo("muster-extender." + Chart.DEFAULT_NAMESPACE + ".svc");
        assertThat(url.getPath()).isEmpty();
        if (https) {
            for (String field : List.of("certFile", "keyFile", "caFile")) { // mutual TLS: kube-scheduler presents a certificate
                assertThat(Tree.string(extender, "tlsConfig", field)).as(field).isNotBlank();
            }
            assertThat(Tree.map(extender, "tlsConfig")).doesNotContainEntry("insecure", true);
        } else {
            assertThat(extender).doesNotContainKey("tlsConfig");
        }
    }

    @Test
    void tlsVariantDiffersFromThePlainOneOnlyInTransport() {
        Path dir = RepoLayout.find().extenderConfig();
        Map<String, Object> plain = SchedulerConfigs.load(dir.resolve("scheduler-config-insecure.yaml"));
        Map<String, Object> tls = SchedulerConfigs.load(dir.resolve("scheduler-config.yaml"));
        assertThat(withoutTransport(tls)).isEqualTo(withoutTransport(plain));
    }

    @Test
    void chartRendersTheseFilesExactlyForTheDefaultInstall() {
        Path dir = RepoLayout.find().extenderConfig();
        assertThat(Chart.render(Chart.Install.defaults()).schedulerConfig())
                .isEqualTo(SchedulerConfigs.load(dir.resolve("scheduler-config.yaml")));
        assertThat(Chart.render(Chart.Install.with("tls.insecureUnauthenticatedVerbs", true)).schedulerConfig())
                .isEqualTo(SchedulerConfigs.load(dir.resolve("scheduler-config-insecure.yaml")));
    }

    @Test
    void readmeExplainsEveryFieldTheFilesUse() throws IOException {
        Path dir = RepoLayout.find().extenderConfig();
        String readme = Files.readString(dir.resolve("README.md"));
        Set<String> fields = new TreeSet<>();
        for (Named<Path> file : yamlFiles().toList()) {
            Chart.yaml().loadAll(Files.readString(file.getPayload())).forEach(doc -> collectKeys(doc, fields));
        }
        assertThat(fields).contains("managedResources", "ignoredByScheduler", "matchConditions", "applyConfiguration");
        assertThat(fields).allSatisfy(field -> assertThat(readme).as("README.md mentions `%s`", field).contains("`" + field + "`"));
    }

    /** The extender entries without scheme, enableHTTPS and tlsConfig, and the rest of the configuration. */
    private static Map<String, Object> withoutTransport(Map<String, Object> config) {
        Map<String, Object> copy = new LinkedHashMap<>(config);
        copy.put("extenders", SchedulerConfigs.extenders(config).stream().map(extender -> {
            Map<String, Object> e = new LinkedHashMap<>(extender);
            e.remove("enableHTTPS");
            e.remove("tlsConfig");
            e.put("urlPrefix", URI.create((String) e.get("urlPrefix")).getAuthority());
            return e;
        }).toList());
        return copy;
    }

    private static void collectKeys(Object node, Set<String> into) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                into.add(String.valueOf(k));
                collectKeys(v, into);
            });
        } else if (node instanceof List<?> list) {
            list.forEach(item -> collectKeys(item, into));
        }
    }
}
