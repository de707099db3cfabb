package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.muster.common.kube.GangApiDiscovery;
import dev.muster.common.kube.GangApiGroups;
import dev.muster.common.kube.GangClaims;
import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.model.GangApi;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.openapi.models.V1APIResourceList;
import io.kubernetes.client.util.PatchUtils;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes Volcano Queue and PodGroup status with client-java: one {@code PATCH} per write, content type
 * {@code application/merge-patch+json}, body {@code {"status":{...}}} ({@link StatusJson}), no
 * resourceVersion — the controller is the only writer of these fields, so there is nothing to conflict with
 * and no read is needed before a write.
 *
 * <p>Where status goes depends on the CRD: with a status subresource, status is written only through
 * {@code .../status} (a patch of the main object silently drops it); without one (Volcano's own PodGroup CRD),
 * {@code .../status} does not exist and the object itself is patched. API discovery of
 * {@code scheduling.volcano.sh/v1beta1} decides ({@code queues/status}, {@code podgroups/status} listed or
 * not). Discovery runs on the first write and again after a 404 (the CRD may have been replaced); when it
 * fails, Volcano's layout is assumed (Queue: {@code /status}; PodGroup: the object) and discovery is retried
 * on a later write after {@link #DISCOVERY_RETRY}.
 *
 * <p>Requests go through client-java's generated {@link CustomObjectsApi} (with {@link PatchUtils} setting the
 * merge-patch content type), never through hand-built calls: client-java adds the {@code Authorization} header into
 * the header map of a call, so a hand-built call with an immutable map fails under bearer-token authentication —
 * which is how every in-cluster ServiceAccount authenticates. Writes carry the field manager {@link #FIELD_MANAGER},
 * so {@code managedFields} name the controller as the writer of status.
 *
 * <p>A PodGroup of another gang API ({@link GangClaims#owner} says which API's PodGroup is the gang) is patched at
 * its own group and the version {@link GangApiDiscovery} found served — {@code scheduling.k8s.io/v1alpha2} or
 * {@code v1beta1}, {@code scheduling.x-k8s.io/v1alpha1} — in its own status shape, that version's for Kubernetes
 * ({@link StatusJson#patchBody(GangApi, String, DesiredStatus, DesiredStatus)}), to {@code /status} when discovery
 * lists {@code podgroups/status} (both do).
 *
 * <p>Confined to the writer's thread (the writer calls one patch at a time); {@code ApiClient} is thread-safe.
 */
public final class KubeStatusPatcher implements StatusPatcher {
    private static final Logger log = LoggerFactory.getLogger(KubeStatusPatcher.class);
    public static final String GROUP = "scheduling.volcano.sh";
    public static final String VERSION = "v1beta1";
    public static final String MERGE_PATCH = V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH;
    public static final String FIELD_MANAGER = "muster-controller";
    static final Duration DISCOVERY_RETRY = Duration.ofMinutes(1);
    private static final Gson JSON_WITH_NULLS = new GsonBuilder().serializeNulls().disableHtmlEscaping().create();

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final LongSupplier ticker;
    private final GangClaims claims;
    private final GangApiDiscovery gangApis; // may be null: then the first known version, with /status
    private Set<String> subresources; // confined; null until discovered
    private long discoveryRetryAt; // confined; ticker time before which a failed discovery is not retried
    private boolean discoveryFailed; // confined

    public KubeStatusPatcher(ApiClient client, LongSupplier ticker) {
        this(client, ticker, new GangClaims(), null);
    }

    /**
     * @param claims   which API's PodGroup each gang is (shared with the informers)
     * @param gangApis the served versions of the gang APIs (shared with the informers, which keep it fresh)
     */
    public KubeStatusPatcher(ApiClient client, LongSupplier ticker, GangClaims claims, GangApiDiscovery gangApis) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.ticker = ticker;
        this.claims = claims;
        this.gangApis = gangApis;
    }

    @Override
    public void patch(StatusKey key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException {
        GangApi owner = key instanceof StatusKey.PodGroup p ? claims.owner(p.gang()) : null;
        if (owner != null && owner != GangApi.VOLCANO) {
            patchOther(owner, (StatusKey.PodGroup) key, desired, previous);
            return;
        }
        String path = pathFor(key);
        // serialised here, with nulls: a null in a merge patch deletes that key (client-java's Gson drops nulls)
        V1Patch body = new V1Patch(JSON_WITH_NULLS.toJson(StatusJson.patchBody(desired, previous)));
        boolean toStatus = path.endsWith("/status");
        try {
            PatchUtils.PatchCallFunc call = switch (key) {
                case StatusKey.Queue q -> () -> toStatus
                        ? api.patchClusterCustomObjectStatus(GROUP, VERSION, "queues", q.name(), body).fieldManager(FIELD_MANAGER).buildCall(null)
                        : api.patchClusterCustomObject(GROUP, VERSION, "queues", q.name(), body).fieldManager(FIELD_MANAGER).buildCall(null);
                case StatusKey.PodGroup p -> () -> toStatus
                        ? api.patchNamespacedCustomObjectStatus(GROUP, VERSION, p.gang().namespace(), "podgroups", p.gang().name(), body)
                                .fieldManager(FIELD_MANAGER).buildCall(null)
                        : api.patchNamespacedCustomObject(GROUP, VERSION, p.gang().namespace(), "podgroups", p.gang().name(), body)
                                .fieldManager(FIELD_MANAGER).buildCall(null);
            };
            PatchUtils.patch(Object.class, call, MERGE_PATCH, client);
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                subresources = null; // maybe the CRD changed: discover again on the next write
            }
            throw failure("PATCH", key, path, e);
        }
    }

    /**
     * PodGroups compare in the shape of the API (and version) that owns them ({@link StatusJson#patchBody(GangApi,
     * String, DesiredStatus, DesiredStatus)}): a Kubernetes PodGroup holds only its condition, a Volcano one no
     * {@code scheduled}, so what the shape does not hold cannot make a write; Queues compare whole.
     */
    @Override
    public boolean same(StatusKey key, DesiredStatus desired, DesiredStatus known) {
        if (known == null) {
            return false;
        }
        if (!(key instanceof StatusKey.PodGroup p)) {
            return desired.equals(known);
        }
        GangApi owner = claims.owner(p.gang());
        String version = owner == null || owner == GangApi.VOLCANO ? null : versionOf(owner);
        return StatusJson.patchBody(owner, version, StatusJson.heldPart(owner, desired, known), null)
                .equals(StatusJson.patchBody(owner, version, known, null));
    }

    /** The version of {@code owner}'s PodGroups served (the oldest Muster reads until discovery has told). */
    private String versionOf(GangApi owner) {
        return versionOf(gangApis, owner);
    }

    /** The version of {@code owner}'s PodGroups {@code gangApis} found served, else the oldest Muster reads. */
    static String versionOf(GangApiDiscovery gangApis, GangApi owner) {
        GangApiDiscovery.Served served = gangApis == null ? null : gangApis.served(owner);
        return served != null ? served.version() : GangApiGroups.versions(owner).getLast();
    }

    private void patchOther(GangApi owner, StatusKey.PodGroup key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException {
        GangApiDiscovery.Served served = gangApis == null ? null : gangApis.served(owner);
        String group = GangApiGroups.group(owner);
        String version = versionOf(owner);
        boolean toStatus = served == null || served.statusSubresource();
        String ns = key.gang().namespace();
        String name = key.gang().name();
        String path = "/apis/" + group + "/" + version + "/namespaces/" + client.escapeString(ns) + "/podgroups/"
                + client.escapeString(name) + (toStatus ? "/status" : "");
        V1Patch body = new V1Patch(JSON_WITH_NULLS.toJson(StatusJson.patchBody(owner, version, desired, previous)));
        try {
            PatchUtils.PatchCallFunc call = () -> toStatus
                    ? api.patchNamespacedCustomObjectStatus(group, version, ns, GangApiGroups.PODGROUPS, name, body).fieldManager(FIELD_MANAGER).buildCall(null)
                    : api.patchNamespacedCustomObject(group, version, ns, GangApiGroups.PODGROUPS, name, body).fieldManager(FIELD_MANAGER).buildCall(null);
            PatchUtils.patch(Object.class, call, MERGE_PATCH, client);
        } catch (ApiException e) {
            throw failure("PATCH", key, path, e);
        }
    }

    /** The path a status patch of {@code key} goes to. */
    String pathFor(StatusKey key) {
        return switch (key) {
            case StatusKey.Queue q -> "/apis/" + GROUP + "/" + VERSION + "/queues/" + client.escapeString(q.name())
                    + (hasStatusSubresource("queues", true) ? "/status" : "");
            case StatusKey.PodGroup p -> "/apis/" + GROUP + "/" + VERSION + "/namespaces/" + client.escapeString(p.gang().namespace())
                    + "/podgroups/" + client.escapeString(p.gang().name()) + (hasStatusSubresource("podgroups", false) ? "/status" : "");
        };
    }

    private boolean hasStatusSubresource(String plural, boolean assumed) {
        if (subresources == null && (!discoveryFailed || ticker.getAsLong() - discoveryRetryAt >= 0)) {
            discover();
        }
        return subresources == null ? assumed : subresources.contains(plural + "/status");
    }

    private void discover() {
        try {
            V1APIResourceList list = api.getAPIResources(GROUP, VERSION).execute();
            Set<String> names = new HashSet<>();
            if (list != null && list.getResources() != null) {
                for (V1APIResource r : list.getResources()) {
                    names.add(r.getName());
                }
            }
            subresources = names;
            discoveryFailed = false;
            log.info("discovery of {}/{}: queues/status {}, podgroups/status {}", GROUP, VERSION,
                    names.contains("queues/status") ? "present" : "absent", names.contains("podgroups/status") ? "present" : "absent");
        } catch (ApiException | RuntimeException e) {
            discoveryFailed = true;
            discoveryRetryAt = ticker.getAsLong() + DISCOVERY_RETRY.toNanos();
            log.warn("discovery of {}/{} failed ({}); assuming Volcano's CRDs (Queue status subresource, PodGroup none)",
                    GROUP, VERSION, e instanceof ApiException a ? "HTTP " + a.getCode() : e.toString());
        }
    }

    static StatusPatchException failure(String method, Object key, String path, ApiException e) {
        int code = e.getCode();
        Kind kind;
        if (code == 0) {
            kind = e.getCause() instanceof InterruptedIOException ? Kind.TIMEOUT : Kind.TRANSPORT;
        } else {
            kind = Kind.ofHttpStatus(code);
        }
        return new StatusPatchException(kind, code, retryAfter(e.getResponseHeaders()),
                method + " " + path + " for " + key + ": " + (code == 0 ? String.valueOf(e.getCause()) : "HTTP " + code + " " + abbreviate(e.getResponseBody())), e);
    }

    private static Duration retryAfter(Map<String, List<String>> headers) {
        if (headers == null) {
            return null;
        }
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if ("Retry-After".equalsIgnoreCase(h.getKey()) && h.getValue() != null && !h.getValue().isEmpty()) {
                try {
                    return Duration.ofSeconds(Long.parseLong(h.getValue().get(0).trim()));
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }
}
