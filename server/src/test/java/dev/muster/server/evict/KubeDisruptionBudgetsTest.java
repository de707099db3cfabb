package dev.muster.server.evict;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.muster.common.kube.KubeDisruptionBudget;
import dev.muster.core.model.PodId;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KubeDisruptionBudgetsTest {
    private final Map<PodId, KubeDisruptionBudgets.PodFacts> cache = new HashMap<>();
    private final KubeDisruptionBudgets budgets = new KubeDisruptionBudgets();

    @BeforeEach
    void wire() {
        budgets.readPodsFrom(cache::get);
    }

    private static KubeDisruptionBudget pdb(String namespace, String name, String selectorJson, int allowed) {
        return pdb(namespace, name, selectorJson, allowed, 1, 1);
    }

    private static KubeDisruptionBudget pdb(String namespace, String name, String selectorJson, int allowed, long generation, long observed) {
        KubeDisruptionBudget b = new KubeDisruptionBudget();
        b.setMetadata(new V1ObjectMeta().namespace(namespace).name(name).generation(generation));
        b.setSpec(JsonParser.parseString("{\"minAvailable\":1" + (selectorJson == null ? "" : ",\"selector\":" + selectorJson) + "}")
                .getAsJsonObject());
        b.setStatus(JsonParser.parseString("{\"disruptionsAllowed\":" + allowed + ",\"observedGeneration\":" + observed + "}")
                .getAsJsonObject());
        return b;
    }

    private PodId pod(String namespace, String name, Map<String, String> labels) {
        PodId id = new PodId(name + "-uid", namespace, name);
        cache.put(id, new KubeDisruptionBudgets.PodFacts(labels, true));
        return id;
    }

    static Stream<Arguments> selectors() {
        Map<String, String> trainA = Map.of("app", "train", "team", "a");
        return Stream.of(
                Arguments.of("matchLabels all present", "{\"matchLabels\":{\"app\":\"train\"}}", trainA, true),
                Arguments.of("matchLabels a value differs", "{\"matchLabels\":{\"app\":\"web\"}}", trainA, false),
                Arguments.of("matchLabels a key missing", "{\"matchLabels\":{\"app\":\"train\",\"tier\":\"x\"}}", trainA, false),
                Arguments.of("an empty selector selects every pod of the namespace", "{}", Map.of(), true),
                Arguments.of("a null selector selects none", "null", trainA, false),
                Arguments.of("no selector selects none", null, trainA, false),
                Arguments.of("In", "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}", trainA, true),
                Arguments.of("In, value not listed", "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"In\",\"values\":[\"b\"]}]}",
                        trainA, false),
                Arguments.of("NotIn holds without the label", "{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"NotIn\",\"values\":[\"x\"]}]}",
                        trainA, true),
                Arguments.of("NotIn, value listed", "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"NotIn\",\"values\":[\"a\"]}]}",
                        trainA, false),
                Arguments.of("Exists", "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"Exists\"}]}", trainA, true),
                Arguments.of("DoesNotExist", "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"DoesNotExist\"}]}", trainA, false),
                Arguments.of("labels and expressions must all hold", "{\"matchLabels\":{\"app\":\"train\"},\"matchExpressions\":"
                        + "[{\"key\":\"team\",\"operator\":\"In\",\"values\":[\"b\"]}]}", trainA, false),
                Arguments.of("an unknown operator makes the selector select none",
                        "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}", trainA, false),
                Arguments.of("In without values is invalid: selects none",
                        "{\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"In\",\"values\":[]}]}", trainA, false),
                Arguments.of("a pod without labels, a selector asking for one", "{\"matchLabels\":{\"app\":\"train\"}}", null, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("selectors")
    void aBudgetThatAllowsNoDisruptionBlocksExactlyThePodsItsSelectorSelects(String name, String selector, Map<String, String> labels,
                                                                          boolean selected) {
        budgets.upserted(pdb("ml", "guard", selector, 0));
        PodId p = pod("ml", "w0", labels);
        assertThat(budgets.blocking(List.of(p))).isEqualTo(selected ? "ml/guard" : null);
    }

    @Test
    void aBudgetBlocksWhenItCoversMorePodsThanItAllowsToGo() {
        budgets.upserted(pdb("ml", "train", "{\"matchLabels\":{\"app\":\"train\"}}", 2));
        PodId a = pod("ml", "a", Map.of("app", "train"));
        PodId b = pod("ml", "b", Map.of("app", "train"));
        PodId c = pod("ml", "c", Map.of("app", "train"));
        PodId other = pod("ml", "web", Map.of("app", "web"));

        assertThat(budgets.blocking(List.of(a, b))).isNull();
        assertThat(budgets.blocking(List.of(a, b, other))).as("a pod it does not cover costs nothing").isNull();
        assertThat(budgets.blocking(List.of(a, b, c))).isEqualTo("ml/train");
    }

    @Test
    void severalBudgetsEachCountTheirOwnPodsAndTheFirstRefusingByNameIsNamed() {
        budgets.upserted(pdb("ml", "zeta", "{\"matchLabels\":{\"gang\":\"z\"}}", 0));
        budgets.upserted(pdb("ml", "alpha", "{\"matchLabels\":{\"gang\":\"a\"}}", 1));
        budgets.upserted(pdb("other", "alpha", "{}", 0)); // another namespace's budget never covers ml's pods
        PodId a1 = pod("ml", "a1", Map.of("gang", "a"));
        PodId a2 = pod("ml", "a2", Map.of("gang", "a"));
        PodId z1 = pod("ml", "z1", Map.of("gang", "z"));

        assertThat(budgets.blocking(List.of(a1))).isNull();
        assertThat(budgets.blocking(List.of(a1, a2))).isEqualTo("ml/alpha");
        assertThat(budgets.blocking(List.of(a1, z1))).isEqualTo("ml/zeta");
        assertThat(budgets.blocking(List.of(a1, a2, z1))).isEqualTo("ml/alpha");
    }

    @Test
    void aPodTwoBudgetsCoverCannotBeEvicted() {
        budgets.upserted(pdb("ml", "one", "{\"matchLabels\":{\"app\":\"train\"}}", 5));
        budgets.upserted(pdb("ml", "two", "{}", 5));
        assertThat(budgets.blocking(List.of(pod("ml", "a", Map.of("app", "train"))))).startsWith("ml/one and ml/two");
    }

    @Test
    void aBudgetWhoseStatusIsOlderThanItsSpecRefusesEveryPodItCovers() {
        budgets.upserted(pdb("ml", "new", "{}", 3, 2, 1));
        assertThat(budgets.blocking(List.of(pod("ml", "a", Map.of())))).isEqualTo("ml/new");
    }

    @Test
    void unknownPodsAndPodsTheEvictionApiDoesNotBudgetCountForNone() {
        budgets.upserted(pdb("ml", "guard", "{}", 0));
        PodId gone = new PodId("gone-uid", "ml", "gone");
        PodId pending = new PodId("p-uid", "ml", "pending");
        cache.put(pending, new KubeDisruptionBudgets.PodFacts(Map.of(), false));

        assertThat(budgets.blocking(List.of(gone, pending))).isNull();
        assertThat(budgets.blocking(List.of())).isNull();
        assertThat(budgets.blocking(List.of(new PodId("x", "no-budgets-here", "x")))).isNull();
    }

    @Test
    void changesAndDeletionsAreSeen() {
        PodId a = pod("ml", "a", Map.of("app", "train"));
        budgets.upserted(pdb("ml", "guard", "{}", 0));
        assertThat(budgets.blocking(List.of(a))).isEqualTo("ml/guard");
        budgets.upserted(pdb("ml", "guard", "{}", 1));
        assertThat(budgets.blocking(List.of(a))).isNull();
        budgets.upserted(pdb("ml", "guard", "{}", 0));
        budgets.deleted(pdb("ml", "guard", "{}", 0));
        assertThat(budgets.blocking(List.of(a))).isNull();
        assertThat(budgets.size()).isZero();
    }

    @Test
    void beforeThePodCacheIsWiredEveryNonEmptySetIsRefused() {
        KubeDisruptionBudgets unwired = new KubeDisruptionBudgets();
        assertThat(unwired.blocking(List.of(new PodId("u", "ml", "a")))).contains("not listed yet");
        assertThat(unwired.blocking(List.of())).isNull();
    }

    @Test
    void theFactsOfACachedPodFollowTheEvictionApisRules() {
        PodId id = new PodId("u-1", "ml", "a");
        V1Pod running = new V1Pod().metadata(new V1ObjectMeta().uid("u-1").name("a").namespace("ml").labels(Map.of("app", "x")))
                .status(new V1PodStatus().phase("Running"));
        assertThat(KubeDisruptionBudgets.factsOf(id, running)).isEqualTo(new KubeDisruptionBudgets.PodFacts(Map.of("app", "x"), true));
        assertThat(KubeDisruptionBudgets.factsOf(id, null)).as("not cached").isNull();
        assertThat(KubeDisruptionBudgets.factsOf(new PodId("u-2", "ml", "a"), running)).as("recreated under the name").isNull();
        for (String phase : List.of("Pending", "Succeeded", "Failed")) {
            V1Pod p = new V1Pod().metadata(new V1ObjectMeta().uid("u-1")).status(new V1PodStatus().phase(phase));
            assertThat(KubeDisruptionBudgets.factsOf(id, p).budgeted()).as(phase).isFalse();
        }
        V1Pod terminating = new V1Pod().metadata(new V1ObjectMeta().uid("u-1").deletionTimestamp(OffsetDateTime.now()))
                .status(new V1PodStatus().phase("Running"));
        assertThat(KubeDisruptionBudgets.factsOf(id, terminating).budgeted()).isFalse();
    }

    /**
     * A decision counts its victims one unit at a time ({@link KubeDisruptionBudgets#tally}): each answer must be the one
     * {@link KubeDisruptionBudgets#blocking} gives for everything counted so far together with the unit asked about —
     * whether a budget refuses, and which — over many random clusters of budgets (stale ones, overlapping ones, none)
     * and pods (budgeted or not, unknown to the cache, in namespaces without budgets).
     */
    @Test
    void aTallyAnswersAsTheWholeSetWouldOneUnitAtATime() {
        java.util.Random rnd = new java.util.Random(7);
        List<String> namespaces = List.of("ml", "web", "free");
        List<String> apps = List.of("a", "b", "c", "d");
        int refusals = 0;
        for (int cluster = 0; cluster < 300; cluster++) {
            cache.clear();
            KubeDisruptionBudgets b = new KubeDisruptionBudgets();
            b.readPodsFrom(cache::get);
            for (String ns : List.of("ml", "web")) {
                for (String app : apps) {
                    if (rnd.nextInt(3) > 0) {
                        String selector = rnd.nextInt(8) == 0 ? "{}" : "{\"matchLabels\":{\"app\":\"" + app + "\"}}";
                        b.upserted(pdb(ns, "pdb-" + app, selector, rnd.nextInt(4), 2, rnd.nextInt(10) == 0 ? 1 : 2));
                    }
                }
            }
            List<PodId> all = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String ns = namespaces.get(rnd.nextInt(namespaces.size()));
                PodId id = new PodId("u" + i, ns, "p" + i);
                int kind = rnd.nextInt(10);
                if (kind == 0) {
                    all.add(id); // not in the cache (gone)
                    continue;
                }
                cache.put(id, new KubeDisruptionBudgets.PodFacts(Map.of("app", apps.get(rnd.nextInt(apps.size()))), kind > 1));
                all.add(id);
            }
            java.util.Collections.shuffle(all, rnd);
            var tally = b.tally();
            List<PodId> counted = new java.util.ArrayList<>();
            for (int at = 0; at < all.size(); ) {
                List<PodId> unit = all.subList(at, Math.min(all.size(), at + 1 + rnd.nextInt(3)));
                at += unit.size();
                List<PodId> together = new java.util.ArrayList<>(counted);
                together.addAll(unit);
                String whole = b.blocking(together);
                assertThat(tally.blocking(unit)).as("cluster %d, %s after %s", cluster, unit, counted).isEqualTo(whole);
                if (whole == null) {
                    tally.count(unit);
                    counted.addAll(unit);
                } else {
                    refusals++;
                }
            }
        }
        assertThat(refusals).as("the clusters must really refuse some units").isGreaterThan(100);
    }

    @Test
    void aTallyBeforeThePodCacheIsWiredRefusesEveryUnit() {
        var tally = new KubeDisruptionBudgets().tally();
        assertThat(tally.blocking(List.of(new PodId("u", "ml", "a")))).contains("not listed yet");
        assertThat(tally.blocking(List.of())).isNull();
    }
}
