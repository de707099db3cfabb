package dev.muster.common.kube;

import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gang per namespace and name, whichever gang API defines it. A gang is keyed by {@link GangKey} (namespace,
 * name) and pods name it by name only, so when PodGroups of two APIs share a name in one namespace, one of them
 * must be the gang: the <b>oldest</b> (creationTimestamp; on a tie Volcano, then Kubernetes, then scheduler-plugins)
 * is, and the others are ignored — logged once with both names — until the winner is deleted, when the next one
 * takes over. The controller writes status only to the winner ({@link #owner}).
 *
 * <p>Informer handlers call {@link #claim} and {@link #release} and apply the {@link Effect} they return to their
 * sink. Thread-safe: all state is guarded by {@code this} (handlers of different APIs run on different threads).
 */
public final class GangClaims {
    private static final Logger log = LoggerFactory.getLogger(GangClaims.class);

    /** What the caller's sink must do after a claim or release. */
    public sealed interface Effect {
        /** Upsert this spec (the winning PodGroup, maybe of another API than the event's). */
        record Upsert(PodGroupSpec spec) implements Effect {}

        /** Delete the gang: no API defines it any more. */
        record Delete(GangKey key) implements Effect {}

        /** Nothing: the event was about a PodGroup that is not the gang. */
        record None() implements Effect {}
    }

    private record Claim(PodGroupSpec spec, Instant created) {}

    private final Map<GangKey, EnumMap<GangApi, Claim>> claims = new HashMap<>(); // guarded by this
    private final Set<String> reported = new HashSet<>(); // guarded by this: conflicts already logged

    /** A PodGroup of {@code api} was added or updated; {@code created} may be null (then it counts as oldest). */
    public synchronized Effect claim(GangApi api, PodGroupSpec spec, Instant created) {
        EnumMap<GangApi, Claim> byApi = claims.computeIfAbsent(spec.key(), k -> new EnumMap<>(GangApi.class));
        byApi.put(api, new Claim(spec, created == null ? Instant.EPOCH : created));
        GangApi winner = winner(byApi);
        if (winner == api) {
            return new Effect.Upsert(spec);
        }
        if (reported.add(spec.key() + "/" + api)) {
            log.warn("podgroup {} is defined by both {} and {}; the older {} PodGroup is the gang, the {} one is ignored until it is deleted",
                    spec.key(), winner.label(), api.label(), winner.label(), api.label());
        }
        return new Effect.None();
    }

    /** A PodGroup of {@code api} was deleted (a key no API claims is deleted too: deletes are idempotent). */
    public synchronized Effect release(GangApi api, GangKey key) {
        EnumMap<GangApi, Claim> byApi = claims.get(key);
        if (byApi == null) {
            return new Effect.Delete(key); // never seen (e.g. deleted while the watch was down): deleting is harmless
        }
        if (!byApi.containsKey(api)) {
            return new Effect.None();
        }
        GangApi before = winner(byApi);
        byApi.remove(api);
        reported.remove(key + "/" + api);
        if (byApi.isEmpty()) {
            claims.remove(key);
            return new Effect.Delete(key);
        }
        if (before != api) {
            return new Effect.None();
        }
        GangApi next = winner(byApi);
        log.info("podgroup {}: the {} PodGroup was deleted; the {} PodGroup of the same name is the gang now", key, api.label(), next.label());
        return new Effect.Upsert(byApi.get(next).spec());
    }

    /** The API whose PodGroup is the gang {@code key}, or null when none defines it. */
    public synchronized GangApi owner(GangKey key) {
        EnumMap<GangApi, Claim> byApi = claims.get(key);
        return byApi == null || byApi.isEmpty() ? null : winner(byApi);
    }

    private static GangApi winner(EnumMap<GangApi, Claim> byApi) {
        GangApi best = null;
        Instant bestAt = null;
        for (Map.Entry<GangApi, Claim> e : byApi.entrySet()) { // EnumMap iterates in declaration order: ties go to the first
            if (best == null || e.getValue().created().isBefore(bestAt)) {
                best = e.getKey();
                bestAt = e.getValue().created();
            }
        }
        return best;
    }
}
