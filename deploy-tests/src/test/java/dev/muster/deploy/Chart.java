package dev.muster.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Runs the real Helm (helm-java, in-process) on charts/muster. Helm's native library is global to
 * the JVM; tests call it from JUnit's single thread.
 */
final class Chart {
    /** The Kubernetes version rendering assumes (the chart's kube-scheduler default). */
    static final String KUBE_VERSION = "v1.36.3";
    /** Release and namespace that extender-config/ is written for. */
    static final String DEFAULT_RELEASE = "muster";
    static final String DEFAULT_NAMESPACE = "muster-system";

    private Chart() {}

    static Path path() {
        return RepoLayout.find().chart();
    }

    static LintResult lintStrict() {
        return new Helm(path()).lint().strict().call();
    }

    /** Installation parameters: release name, namespace and --set values. */
    record Install(String release, String namespace, Map<String, Object> values) {
        static Install defaults() {
            return new Install(DEFAULT_RELEASE, DEFAULT_NAMESPACE, Map.of());
        }

        static Install with(Object... keyValues) {
            return defaults().set(keyValues);
        }

        Install set(Object... keyValues) {
            Map<String, Object> merged = new LinkedHashMap<>(values);
            for (int i = 0; i < keyValues.length; i += 2) {
                merged.put((String) keyValues[i], keyValues[i + 1]);
            }
            return new Install(release, namespace, merged);
        }

        Install in(String newRelease, String newNamespace) {
            return new Install(newRelease, newNamespace, values);
        }

        /** The --set value for {@code key}, or {@code defaultValue} (the chart's default) when not set. */
        String value(String key, Object defaultValue) {
            return String.valueOf(values.getOrDefault(key, defaultValue));
        }
    }

    private static final Map<Install, Rendered> RENDERED = new ConcurrentHashMap<>();

    /** Renders {@code install} (each distinct install once per test run; results are read-only). */
    static Rendered render(Install install) {
        return RENDERED.computeIfAbsent(install, i -> new Rendered(i, List.copyOf(parse(command(i).call()))));
    }

    /** The error Helm reports for {@code install}, or empty when it renders. */
    static Optional<String> renderError(Install install) {
        return renderError(install, KUBE_VERSION);
    }

    /** The error Helm reports for {@code install} on a cluster of {@code kubeVersion}, or empty when it renders. */
    static Optional<String> renderError(Install install, String kubeVersion) {
        try {
            command(install, kubeVersion).call();
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    private static TemplateCommand command(Install install) {
        return command(install, KUBE_VERSION);
    }

    private static TemplateCommand command(Install install, String kubeVersion) {
        TemplateCommand command = new Helm(path()).template()
                .withName(install.release())
                .withNamespace(install.namespace())
                .withKubeVersion(kubeVersion);
        if (!install.values().containsKey("tls.keepGenerated")) {
            command.set("tls.keepGenerated", false); // helm-java's template has no cluster for Helm's lookup, which then fails
        }
        install.values().forEach(command::set);
        return command;
    }

    static List<Manifest> parse(String multiDocumentYaml) {
        List<Manifest> manifests = new ArrayList<>();
        for (Object doc : yaml().loadAll(multiDocumentYaml)) {
            if (doc instanceof Map<?, ?> map && !map.isEmpty()) {
                manifests.add(new Manifest(Tree.map(map)));
            }
        }
        return manifests;
    }

    static Yaml yaml() {
        return new Yaml(new SafeConstructor(new LoaderOptions()));
    }

    /** The objects one render produced. */
    record Rendered(Install install, List<Manifest> manifests) {

        List<Manifest> ofKind(String kind) {
            return manifests.stream().filter(m -> kind.equals(m.kind())).toList();
        }

        Manifest one(String kind, String name) {
            return find(kind, name).orElseThrow(() -> new AssertionError(
                    "no " + kind + "/" + name + " rendered; have " + manifests.stream().map(Manifest::id).toList()));
        }

        Optional<Manifest> find(String kind, String name) {
            return manifests.stream().filter(m -> kind.equals(m.kind()) && name.equals(m.name())).findFirst();
        }

        /** The Deployment of a component ("scheduler", "extender", "controller"). */
        Manifest deployment(String component) {
            List<Manifest> matching = ofKind("Deployment").stream()
                    .filter(d -> component.equals(d.podLabels().get("app.kubernetes.io/component")))
                    .toList();
            if (matching.size() != 1) {
                throw new AssertionError(matching.size() + " Deployments for component " + component);
            }
            return matching.get(0);
        }

        /** The KubeSchedulerConfiguration in the scheduler's ConfigMap, parsed. */
        Map<String, Object> schedulerConfig() {
            Manifest scheduler = deployment("scheduler");
            String configMapName = Tree.maps(scheduler.podSpec(), "volumes").stream()
                    .filter(v -> "config".equals(v.get("name")))
                    .map(v -> Tree.string(v, "configMap", "name"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("scheduler Deployment mounts no config volume"));
            Object text = Tree.map(one("ConfigMap", configMapName).body(), "data").get("scheduler-config.yaml");
            if (text == null) {
                throw new AssertionError("ConfigMap " + configMapName + " has no scheduler-config.yaml");
            }
            return Tree.map(yaml().load(text.toString()));
        }
    }
}
