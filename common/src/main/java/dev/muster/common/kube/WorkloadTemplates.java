package dev.muster.common.kube;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The Workloads' PodGroup templates, for the Kubernetes PodGroups that refer to them ({@code spec.podGroupTemplateRef} in v1alpha2, {@code spec.workloadRef} in v1beta1,
 * {@link KubernetesPodGroupConverter}), and which PodGroups refer to which Workload, so that a Workload that arrives,
 * changes or goes away re-resolves exactly the gangs that name it.
 *
 * <p>Informer handlers call {@link #podGroupUpserted}/{@link #podGroupDeleted} for Kubernetes PodGroups and
 * {@link #workloadUpserted}/{@link #workloadDeleted} for Workloads; each runs the caller's action under this object's
 * lock, so a PodGroup's spec reaches the caller's sink in the order its events and its Workload's events happened (a
 * re-resolution always converts the latest PodGroup object seen). Thread-safe: all state is guarded by {@code this};
 * the actions may call the core (whose lock is taken after this one, never before).
 */
public final class WorkloadTemplates implements KubernetesPodGroupConverter.TemplateLookup {
    private final Map<String, Map<String, JsonObject>> templates = new HashMap<>(); // guarded by this: "ns/workload" → name → template
    private final Map<String, Map<GangKey, RawCustomObject>> referrers = new HashMap<>(); // guarded by this: "ns/workload" → latest PodGroups naming it
    private final Map<GangKey, String> named = new HashMap<>(); // guarded by this: PodGroup → "ns/workload" it names
    private boolean watched; // guarded by this

    /** Workloads are watched from now on (their informer exists): a missing one is missing, not unknown. */
    public synchronized void watching() {
        watched = true;
    }

    /** Converts a Kubernetes PodGroup, remembering which Workload it names, and hands the spec to {@code action}. */
    public synchronized void podGroupUpserted(RawCustomObject podGroup, Consumer<PodGroupSpec> action) {
        GangKey key = PodGroupConverter.keyOf(podGroup);
        forget(key);
        String workload = KubernetesPodGroupConverter.workloadNameOf(podGroup);
        if (workload != null) {
            String wk = key.namespace() + "/" + workload;
            named.put(key, wk);
            referrers.computeIfAbsent(wk, k -> new LinkedHashMap<>()).put(key, podGroup);
        }
        action.accept(KubernetesPodGroupConverter.toCore(podGroup, this));
    }

    /** A Kubernetes PodGroup was deleted; {@code action} runs under the lock. */
    public synchronized void podGroupDeleted(RawCustomObject podGroup, Runnable action) {
        forget(PodGroupConverter.keyOf(podGroup));
        action.run();
    }

    /**
     * A Workload was added or updated: its templates are stored, then each PodGroup that names it is handed to
     * {@code reresolve} (the latest object seen; convert it again with {@link #podGroupUpserted}).
     *
     * @throws ConversionException naming the Workload and the field (the templates known before stay)
     */
    public synchronized void workloadUpserted(KubeWorkload workload, Consumer<RawCustomObject> reresolve) {
        String wk = keyOf(workload);
        templates.put(wk, parse(wk, workload.getSpec()));
        reresolveReferrers(wk, reresolve);
    }

    /** A Workload was deleted: the PodGroups that name it are handed to {@code reresolve} (they become unresolved). */
    public synchronized void workloadDeleted(KubeWorkload workload, Consumer<RawCustomObject> reresolve) {
        String wk = keyOf(workload);
        templates.remove(wk);
        reresolveReferrers(wk, reresolve);
    }

    @Override
    public synchronized KubernetesPodGroupConverter.Template find(String namespace, String workload, String template) {
        String wk = namespace + "/" + workload;
        if (!watched) {
            return KubernetesPodGroupConverter.TemplateLookup.NOT_WATCHED.find(namespace, workload, template);
        }
        Map<String, JsonObject> byName = templates.get(wk);
        if (byName == null) {
            return new KubernetesPodGroupConverter.Template.Missing("Workload " + wk + " does not exist");
        }
        JsonObject t = byName.get(template);
        if (t == null) {
            return new KubernetesPodGroupConverter.Template.Missing("Workload " + wk + " has no podGroupTemplate \"" + template
                    + "\" (it has " + (byName.isEmpty() ? "none" : String.join(", ", byName.keySet())) + ")");
        }
        return new KubernetesPodGroupConverter.Template.Found(t);
    }

    /** How many PodGroups name a Workload (for tests and metrics). */
    public synchronized int referringPodGroups() {
        return named.size();
    }

    private void reresolveReferrers(String wk, Consumer<RawCustomObject> reresolve) {
        Map<GangKey, RawCustomObject> pgs = referrers.get(wk);
        if (pgs != null) {
            for (RawCustomObject pg : new ArrayList<>(pgs.values())) {
                reresolve.accept(pg);
            }
        }
    }

    private void forget(GangKey key) {
        String wk = named.remove(key);
        if (wk != null) {
            Map<GangKey, RawCustomObject> pgs = referrers.get(wk);
            if (pgs != null) {
                pgs.remove(key);
                if (pgs.isEmpty()) {
                    referrers.remove(wk);
                }
            }
        }
    }

    private static String keyOf(KubeWorkload workload) {
        var meta = workload.getMetadata();
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            throw new ConversionException("workload without a name");
        }
        return (meta.getNamespace() == null ? "" : meta.getNamespace()) + "/" + meta.getName();
    }

    private static Map<String, JsonObject> parse(String wk, JsonObject spec) {
        String where = "workload " + wk + " spec.podGroupTemplates";
        JsonElement list = new CrdFields("workload " + wk + " spec", spec).raw("podGroupTemplates");
        Map<String, JsonObject> out = new LinkedHashMap<>();
        if (list == null) {
            return out;
        }
        if (!(list instanceof JsonArray array)) {
            throw new ConversionException(where + ": expected a list, got " + ResourceLists.abbreviate(list.toString()));
        }
        for (int i = 0; i < array.size(); i++) {
            if (!array.get(i).isJsonObject()) {
                throw new ConversionException(where + "[" + i + "]: expected an object");
            }
            JsonObject t = array.get(i).getAsJsonObject();
            String name = new CrdFields(where + "[" + i + "]", t).string("name");
            if (name == null || name.isEmpty()) {
                throw new ConversionException(where + "[" + i + "]: name is required");
            }
            out.put(name, t);
        }
        return java.util.Collections.unmodifiableMap(out);
    }
}
