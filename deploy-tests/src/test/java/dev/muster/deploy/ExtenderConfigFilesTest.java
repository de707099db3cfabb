package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.config.Durations;
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

/** Every KubeSchedulerConfiguration in extender-config/ agrees with the extender's routes and defaults. */
class ExtenderConfigFilesTest {

    static Stream<Named<Path>> configFiles() throws IOException {
        try (Stream<Path> files = Files.list(RepoLayout.find().extenderConfig())) {
            List<Path> yaml = files.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml")).sorted().toList();
            return yaml.stream().map(p -> Named.of(p.getFileName().toString(), p));
        }
    }

    @Test
    void thePlainAndTheTlsVariantExist() throws IOException {
        assertThat(configFiles().map(Named::getName)).contains("scheduler-config.yaml", "scheduler-config-tls.yaml");
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
    void electsOnItsOwnLease(Path file) {
        Map<String, Object> election = Tree.map(SchedulerConfigs.load(file), "leaderElection");
        assertThat(election).containsEntry("leaderElect", true).containsEntry("resourceLock", "leases");
        assertThat(Tree.string(election, "resourceName")).isNotBlank().isNotEqualTo("kube-scheduler")
                .isNotEqualTo(ServerDefaults.LEASE_NAME);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void hasExactlyOneExtenderThatBindsAndCannotBeIgnored(Path file) {
        Map<String, Object> extender = SchedulerConfigs.onlyExtender(SchedulerConfigs.load(file));
        // An ignorable extender that fails lets kube-scheduler fall back to its default binder,
        // which would bind gang members one by one past the gang barrier.
        assertThat(extender).containsEntry("ignorable", false);
        assertThat(extender).containsEntry("nodeCacheCapable", true);
        // no prioritize verb: filter passes a member only on its slot's node, kube-scheduler scores single pods
        assertThat(extender).containsKeys("filterVerb", "bindVerb", "preemptVerb").doesNotContainKeys("prioritizeVerb", "weight");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void everyVerbIsARouteTheExtenderServes(Path file) {
        Map<String, Object> extender = SchedulerConfigs.onlyExtender(SchedulerConfigs.load(file));
        Map<String, Object> verbs = new LinkedHashMap<>();
        extender.forEach((key, value) -> {
            if (key.endsWith("Verb")) {
                verbs.put(key, value);
            }
        });
        assertThat(verbs).isNotEmpty();
        assertThat(verbs.values()).allSatisfy(verb -> assertThat(ExtenderRoutes.VERBS).contains(String.valueOf(verb)));
        assertThat(verbs).containsEntry("filterVerb", ExtenderRoutes.FILTER_VERB)
                .containsEntry("bindVerb", ExtenderRoutes.BIND_VERB)
                .containsEntry("preemptVerb", ExtenderRoutes.PREEMPT_VERB);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void httpTimeoutOutlastsTheGangDeadline(Path file) {
        Map<String, Object> extender = SchedulerConfigs.onlyExtender(SchedulerConfigs.load(file));
        Duration timeout = Durations.parse("httpTimeout", Tree.string(extender, "httpTimeout"));
        assertThat(timeout).as("httpTimeout vs the gang deadline a bind may wait").isGreaterThan(ServerDefaults.GANG_DEADLINE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configFiles")
    void urlSchemeAgreesWithEnableHttpsAndTlsNamesACa(Path file) {
        Map<String, Object> extender = SchedulerConfigs.onlyExtender(SchedulerConfigs.load(file));
        URI url = URI.create(Tree.string(extender, "urlPrefix"));
        boolean https = Boolean.TRUE.equals(extender.get("enableHTTPS"));
        assertThat(url.getScheme()).isEqualTo(https ? "https" : "http");
        assertThat(url.getPort()).isEqualTo(ServerDefaults.HTTP_PORT);
        assertThat(url.getHost()).as("the chart's extender Service in the default install")
                .isEqualTo("muster-extender." + Chart.DEFAULT_NAMESPACE + ".svc");
        assertThat(url.getPath()).isEmpty();
        if (https) {
            assertThat(Tree.string(extender, "tlsConfig", "caFile")).isNotBlank();
            assertThat(Tree.map(extender, "tlsConfig")).doesNotContainEntry("insecure", true);
        } else {
            assertThat(extender).doesNotContainKey("tlsConfig");
        }
    }

    @Test
    void tlsVariantDiffersFromThePlainOneOnlyInTransport() {
        Path dir = RepoLayout.find().extenderConfig();
        Map<String, Object> plain = SchedulerConfigs.load(dir.resolve("scheduler-config.yaml"));
        Map<String, Object> tls = SchedulerConfigs.load(dir.resolve("scheduler-config-tls.yaml"));
        Map<String, Object> plainExtender = new LinkedHashMap<>(SchedulerConfigs.onlyExtender(plain));
        Map<String, Object> tlsExtender = new LinkedHashMap<>(SchedulerConfigs.onlyExtender(tls));
        for (Map<String, Object> e : List.of(plainExtender, tlsExtender)) {
            e.remove("enableHTTPS");
            e.remove("tlsConfig");
            e.put("urlPrefix", URI.create((String) e.get("urlPrefix")).getAuthority());
        }
        assertThat(tlsExtender).isEqualTo(plainExtender);
        assertThat(Tree.map(tls, "leaderElection")).isEqualTo(Tree.map(plain, "leaderElection"));
        assertThat(Tree.list(tls, "profiles")).isEqualTo(Tree.list(plain, "profiles"));
    }

    @Test
    void chartRendersTheseFilesExactlyForTheDefaultInstall() {
        Path dir = RepoLayout.find().extenderConfig();
        assertThat(Chart.render(Chart.Install.defaults()).schedulerConfig())
                .isEqualTo(SchedulerConfigs.load(dir.resolve("scheduler-config.yaml")));
        assertThat(Chart.render(Chart.Install.with("extender.tls.enabled", true)).schedulerConfig())
                .isEqualTo(SchedulerConfigs.load(dir.resolve("scheduler-config-tls.yaml")));
    }

    @Test
    void readmeExplainsEveryFieldTheFilesUse() throws IOException {
        Path dir = RepoLayout.find().extenderConfig();
        String readme = Files.readString(dir.resolve("README.md"));
        Set<String> fields = new TreeSet<>();
        for (Named<Path> file : configFiles().toList()) {
            collectKeys(SchedulerConfigs.load(file.getPayload()), fields);
        }
        assertThat(fields).allSatisfy(field -> assertThat(readme).as("README.md mentions `%s`", field).contains("`" + field + "`"));
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
