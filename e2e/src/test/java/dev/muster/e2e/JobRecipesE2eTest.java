package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every recipe of docs/jobs.md, read from the page itself (its first YAML block under each heading), applied on the
 * real control plane with controllers and hollow kubelets: each recipe's gang is bound whole, Running, and its PodGroup
 * {@code Running}. The page cannot drift from what runs.
 *
 * <p>What the test changes in a recipe: the namespace and the Queue (its own, per test), every container's requests
 * (shrunk to 100m / 64Mi to fit four 1-cpu hollow nodes) and a label {@code recipe} on every pod template (to find the
 * pods). A {@code batch/v1} Job is run by the real Job controller. For the kinds of other projects no controller and
 * no CRD can be installed offline, so the test installs a stand-in CRD that accepts any object of the kind (no
 * schema, not the project's CRD), applies the recipe's object, then creates what that kind's controller would create
 * from the recipe's own templates: the Jobs of a JobSet (the real Job controller makes their pods), the pods of the
 * others, and for Volcano's Job its PodGroup too.
 */
class JobRecipesE2eTest extends ControllersClusterTest {
    private static final Path PAGE = E2eCluster.REPO.resolve("docs/jobs.md");
    private static final String CPU = "100m";
    private static final long CPU_MILLIS = 100;

    @Test
    void everyRecipeOnThePageIsOneThisTestApplies() throws IOException {
        assertThat(recipes().keySet()).containsExactlyInAnyOrder("batch/v1 Job", "JobSet", "Kubeflow PyTorchJob", "MPIJob", "RayJob",
                "LeaderWorkerSet", "Volcano Job (vcjob)");
    }

    @Test
    void anIndexedJobRunsOnTheRealJobController() throws IOException {
        Applied a = apply("batch/v1 Job");
        awaitGang(a.podGroup("train"), 4);
        assertThat(c.admin.pods(ns, "recipe=train")).allMatch(p -> p.getMetadata().getLabels().containsKey("job-name"));
    }

    @Test
    void aJobSetsJobsRunOnTheRealJobController() throws IOException {
        Applied a = apply("JobSet");
        Map<String, Object> jobSet = a.only("JobSet");
        for (Map<String, Object> rj : list(jobSet, "spec", "replicatedJobs")) {
            for (int i = 0; i < number(rj, "replicas"); i++) {
                Map<String, Object> job = new LinkedHashMap<>();
                job.put("apiVersion", "batch/v1");
                job.put("kind", "Job");
                job.put("metadata", Map.of("name", name(jobSet) + "-" + rj.get("name") + "-" + i, "namespace", ns,
                        "labels", Map.of("jobset.sigs.k8s.io/jobset-name", name(jobSet))));
                job.put("spec", map(rj, "template", "spec"));
                c.workloads.create("batch", "v1", ns, "jobs", job);
            }
        }
        awaitGang(a.podGroup("pretrain"), 4);
    }

    @Test
    void aPyTorchJobsMasterAndWorkersStartTogether() throws IOException {
        Applied a = apply("Kubeflow PyTorchJob");
        Map<String, Object> job = a.only("PyTorchJob");
        map(job, "spec", "pytorchReplicaSpecs").forEach((type, spec) -> {
            Map<String, Object> s = cast(spec);
            for (int i = 0; i < number(s, "replicas"); i++) {
                pod(name(job) + "-" + type.toLowerCase(Locale.ROOT) + "-" + i, map(s, "template"), (String) s.get("restartPolicy"));
            }
        });
        awaitGang(a.podGroup("finetune"), 4);
    }

    @Test
    void anMpiJobsLauncherAndWorkersStartTogether() throws IOException {
        Applied a = apply("MPIJob");
        Map<String, Object> job = a.only("MPIJob");
        Map<String, Object> specs = map(job, "spec", "mpiReplicaSpecs");
        pod(name(job) + "-launcher", map(specs, "Launcher", "template"), null);
        for (int i = 0; i < number(map(specs, "Worker"), "replicas"); i++) {
            pod(name(job) + "-worker-" + i, map(specs, "Worker", "template"), null);
        }
        awaitGang(a.podGroup("allreduce"), 3);
    }

    @Test
    void aRayJobsHeadAndWorkersStartTogether() throws IOException {
        Applied a = apply("RayJob");
        Map<String, Object> job = a.only("RayJob");
        Map<String, Object> cluster = map(job, "spec", "rayClusterSpec");
        pod(name(job) + "-head", map(cluster, "headGroupSpec", "template"), null);
        for (Map<String, Object> group : list(cluster, "workerGroupSpecs")) {
            for (int i = 0; i < number(group, "replicas"); i++) {
                pod(name(job) + "-" + group.get("groupName") + "-worker-" + i, map(group, "template"), null);
            }
        }
        awaitGang(a.podGroup("tune"), 3);
    }

    @Test
    void aLeaderWorkerSetsGroupStartsTogether() throws IOException {
        Applied a = apply("LeaderWorkerSet");
        Map<String, Object> lws = a.only("LeaderWorkerSet");
        Map<String, Object> template = map(lws, "spec", "leaderWorkerTemplate");
        assertThat(number(map(lws, "spec"), "replicas")).as("the recipe is for one group").isEqualTo(1);
        pod(name(lws) + "-0", map(template, "leaderTemplate"), null);
        for (int i = 1; i < number(template, "size"); i++) {
            pod(name(lws) + "-0-" + i, map(template, "workerTemplate"), null);
        }
        awaitGang(a.podGroup("serve"), 4);
    }

    @Test
    void aVolcanoJobsPodGroupAndTasksAreScheduledByMuster() throws IOException {
        Applied a = apply("Volcano Job (vcjob)");
        Map<String, Object> job = a.only("Job");
        assertThat(a.objects()).as("no PodGroup of the user's own: Volcano's job controller makes it").hasSize(1);
        // what vc-controller-manager creates for it: the PodGroup named after the job and its uid, then the tasks' pods
        String podGroup = name(job) + "-" + map(job, "metadata").get("uid");
        c.admin.podGroup(ns, podGroup, number(map(job, "spec"), "minAvailable"), (String) map(job, "spec").get("queue"), Map.of());
        for (Map<String, Object> task : list(job, "spec", "tasks")) {
            for (int i = 0; i < number(task, "replicas"); i++) {
                Map<String, Object> template = copy(map(task, "template"));
                Map<String, Object> metadata = cast(template.computeIfAbsent("metadata", k -> new LinkedHashMap<>()));
                Map<String, Object> annotations = cast(metadata.computeIfAbsent("annotations", k -> new LinkedHashMap<>()));
                annotations.put("scheduling.k8s.io/group-name", podGroup);
                annotations.put("volcano.sh/task-spec", task.get("name"));
                annotations.put("volcano.sh/job-name", name(job));
                cast(template.get("spec")).put("schedulerName", map(job, "spec").get("schedulerName"));
                pod(name(job) + "-" + task.get("name") + "-" + i, template, null);
            }
        }
        awaitGang(podGroup, 4);
    }

    // ------------------------------------------------------------------------------------------------ applying a recipe

    /** The objects of a recipe as the test sent them (with the uid the API server gave each), by kind. */
    private record Applied(List<Map<String, Object>> objects) {
        Map<String, Object> only(String kind) {
            List<Map<String, Object>> of = objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
            assertThat(of).as("the recipe's %s", kind).hasSize(1);
            return of.getFirst();
        }

        String podGroup(String expected) {
            assertThat(name(only("PodGroup"))).isEqualTo(expected);
            return expected;
        }
    }

    /** Applies the recipe under {@code heading}, changed only as the class comment says. */
    private Applied apply(String heading) throws IOException {
        List<Map<String, Object>> objects = recipes().get(heading);
        assertThat(objects).as("docs/jobs.md has a recipe \"%s\"", heading).isNotNull().isNotEmpty();
        List<Map<String, Object>> created = new ArrayList<>();
        for (Map<String, Object> o : objects) {
            Map<String, Object> object = copy(o);
            cast(object.get("metadata")).put("namespace", ns);
            Map<String, Object> spec = cast(object.get("spec"));
            if (spec.containsKey("queue")) {
                spec.put("queue", queue);
            }
            fitForTheTest(object, name(object));
            String[] gv = ((String) object.get("apiVersion")).split("/");
            String kind = (String) object.get("kind");
            String plural = kind.toLowerCase(Locale.ROOT) + "s";
            if (!gv[0].equals("batch") && !gv[0].equals(Kube.GROUP)) {
                standInCrd(gv[0], gv[1], kind, plural);
            }
            Map<String, Object> answer = c.workloads.create(gv[0], gv[1], ns, plural, object);
            cast(object.get("metadata")).put("uid", map(answer, "metadata").get("uid"));
            created.add(object);
        }
        return new Applied(created);
    }

    /** Every container's requests shrunk to {@value #CPU}; every pod template labelled {@code recipe=NAME}. */
    private static void fitForTheTest(Object node, String recipe) {
        if (node instanceof Map<?, ?> m) {
            Map<String, Object> map = cast(m);
            if (map.get("containers") instanceof List<?> containers) {
                for (Object container : containers) {
                    cast(container).put("resources", Map.of("requests", Map.of("cpu", CPU, "memory", "64Mi")));
                }
            }
            if (map.get("spec") instanceof Map<?, ?> spec && spec.containsKey("containers")) {
                Map<String, Object> metadata = cast(map.computeIfAbsent("metadata", k -> new LinkedHashMap<>()));
                cast(metadata.computeIfAbsent("labels", k -> new LinkedHashMap<>())).put("recipe", recipe);
            }
            map.values().forEach(v -> fitForTheTest(v, recipe));
        } else if (node instanceof List<?> l) {
            l.forEach(v -> fitForTheTest(v, recipe));
        }
    }

    /**
     * A test stand-in, not the project's CRD: the kind's name and version, served, with no schema (any object of the
     * kind is accepted as written). Created once per cluster.
     */
    private void standInCrd(String group, String version, String kind, String plural) {
        String name = plural + "." + group;
        if (c.workloads.clusterObjectExists("apiextensions.k8s.io", "v1", "customresourcedefinitions", name)) {
            return;
        }
        c.admin.crd(Map.of("apiVersion", "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
                "metadata", Map.of("name", name, "labels", Map.of("muster.dev/test-stand-in", "true")),
                "spec", Map.of("group", group, "scope", "Namespaced",
                        "names", Map.of("plural", plural, "singular", kind.toLowerCase(Locale.ROOT), "kind", kind),
                        "versions", List.of(Map.of("name", version, "served", true, "storage", true,
                                "schema", Map.of("openAPIV3Schema", Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true)))))));
    }

    /** Creates the pod a controller would create from {@code template} (its metadata and spec as written). */
    private void pod(String name, Map<String, Object> template, String restartPolicy) {
        Map<String, Object> pod = copy(template);
        Map<String, Object> metadata = cast(pod.computeIfAbsent("metadata", k -> new LinkedHashMap<>()));
        metadata.put("name", name);
        metadata.put("namespace", ns);
        if (restartPolicy != null) {
            cast(pod.get("spec")).put("restartPolicy", restartPolicy);
        }
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        V1Pod typed = JSON.getGson().fromJson(JSON.getGson().toJsonTree(pod), V1Pod.class);
        Kube.call("create pod " + ns + "/" + name, () -> c.admin.core().createNamespacedPod(ns, typed).execute());
    }

    private void awaitGang(String podGroup, int members) {
        c.awaitRunning(ns, "recipe", members);
        c.awaitGangRunning(ns, podGroup, queue, members, members * CPU_MILLIS);
        assertThat(c.admin.pods(ns, "recipe")).as("every member bound by Muster's scheduler")
                .allMatch(p -> Kube.SCHEDULER_NAME.equals(p.getSpec().getSchedulerName()) && p.getSpec().getNodeName() != null);
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }

    // ------------------------------------------------------------------------------------------------ the page

    /** Each "## heading" of docs/jobs.md with the objects of its first YAML block, in page order. */
    static Map<String, List<Map<String, Object>>> recipes() throws IOException {
        Map<String, List<Map<String, Object>>> out = new LinkedHashMap<>();
        String heading = null;
        StringBuilder yaml = null;
        for (String line : Files.readAllLines(PAGE)) {
            if (yaml != null) {
                if (line.startsWith("```")) {
                    List<Map<String, Object>> objects = new ArrayList<>();
                    new Yaml().loadAll(yaml.toString()).forEach(o -> objects.add(cast(o)));
                    out.putIfAbsent(heading, objects);
                    yaml = null;
                } else {
                    yaml.append(line).append('\n');
                }
            } else if (line.startsWith("## ")) {
                heading = line.substring(3).strip();
            } else if (line.startsWith("```yaml") && heading != null) {
                yaml = new StringBuilder();
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ maps

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object o) {
        return (Map<String, Object>) Objects.requireNonNull(o);
    }

    private static Map<String, Object> map(Map<String, Object> o, String... path) {
        return cast(Workloads.field(o, path));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> o, String... path) {
        return (List<Map<String, Object>>) Objects.requireNonNull(Workloads.field(o, path));
    }

    private static int number(Map<String, Object> o, String key) {
        return ((Number) o.get(key)).intValue();
    }

    private static String name(Map<String, Object> o) {
        return (String) map(o, "metadata").get("name");
    }

    /** A deep, mutable copy (numbers stay as YAML read them: a replica count stays an integer). */
    private static Map<String, Object> copy(Map<String, Object> o) {
        return cast(deepCopy(o));
    }

    private static Object deepCopy(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, deepCopy(v)));
            return out;
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(deepCopy(v)));
            return out;
        }
        return o;
    }
}
