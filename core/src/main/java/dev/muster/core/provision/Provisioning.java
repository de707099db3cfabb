package dev.muster.core.provision;

import dev.muster.core.model.GangKey;
import dev.muster.core.time.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Each gang's request for nodes, from the moment it needs them until it is deleted ({@link Phase} draws the state
 * machine). It decides; it does not call the API: what to create and delete is handed out as {@link Work}
 * ({@link #drain}), and what the API says comes back through {@link #createFailed}, {@link #observed}
 * and {@link #requestDeleted}.
 *
 * <p><b>Rules.</b> A gang gets one request at a time, named {@code <podgroup>-<attempt>} (so a restarted process that
 * asks again for the same attempt finds the request already there instead of making a second). {@code Failed}, and
 * {@code BookingExpired} or {@code CapacityRevoked} before the gang runs, or the request deleted by someone else: the
 * request is deleted, the gang waits out a capped exponential backoff ({@link Settings#backoff()}), and if it still needs
 * nodes then, the next attempt is made; it never gives up while the gang waits (each reason says the attempt and why
 * the last one failed). {@code BookingExpired} or {@code CapacityRevoked} once the gang runs changes nothing. A gang
 * that no longer needs nodes before they are provisioned ({@link #withdraw}) or is deleted ({@link #gangGone}) has its
 * request deleted.
 *
 * <p><b>Thread-safety.</b> This class is thread-safe: one lock, {@code lock}, guards every field below it. It is taken
 * by the gate's hold under the core's lock (lock order: the core's, then this one) and by the API side without the
 * core's lock; nothing is called out of this class while it is held. Reads return copies.
 */
public final class Provisioning {
    /** Who creates requests, and how long to wait before the next attempt after one failed. */
    public record Settings(String className, Map<String, String> parameters, Backoff backoff) {
        public static final String ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io";

        public Settings {
            Objects.requireNonNull(className, "className");
            if (className.isBlank()) {
                throw new IllegalArgumentException("the provisioning class name is empty");
            }
            parameters = Map.copyOf(parameters);
            Objects.requireNonNull(backoff, "backoff");
        }

        public static Settings atomic() {
            return new Settings(ATOMIC, Map.of(), new Backoff(Duration.ofSeconds(10), Duration.ofMinutes(10)));
        }
    }

    /** What the API side is to do. */
    public sealed interface Work {
        GangKey gang();

        String name();

        /** Create the request {@code name} (and its PodTemplates) for {@code pods}, the names of the gang's pods that wait. */
        record Create(GangKey gang, String name, int attempt, List<String> pods) implements Work {
            public Create {
                pods = List.copyOf(pods);
            }
        }

        /** Delete the request {@code name} (its PodTemplates go with it). */
        record Delete(GangKey gang, String name) implements Work {}
    }

    /** A gang's request as the hold and the status see it. */
    public record Answer(GangKey gang, String name, Phase phase, int pods, int attempt, String text, boolean backoffOver) {}

    private final Settings settings;
    private final ReentrantLock lock = new ReentrantLock();
    // ---- guarded by lock ----
    private final Map<GangKey, Entry> entries = new HashMap<>();
    private final Map<String, Work> work = new LinkedHashMap<>(); // namespace/name → the last thing to do with it
    private final List<Double> provisionedSeconds = new ArrayList<>();
    private boolean listed; // the requests that exist were read once (a restarted process adopts them before it creates any)

    private static final class Entry {
        final GangKey gang;
        int attempt;
        String name;
        Phase phase = Phase.REQUESTED;
        int pods;
        long requestedAt;
        int failures;
        long notBefore;
        String lastFailure = "";

        Entry(GangKey gang) {
            this.gang = gang;
        }
    }

    public Provisioning(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public Settings settings() {
        return settings;
    }

    /** The name of {@code gang}'s request of {@code attempt}: a DNS subdomain of at most 240 characters. */
    public static String nameFor(GangKey gang, int attempt) {
        String suffix = "-" + attempt;
        String base = gang.name();
        if (base.length() + suffix.length() > 240) {
            base = base.substring(0, 220) + "-" + Integer.toHexString(gang.name().hashCode());
        }
        return base + suffix;
    }

    /** The attempt a request name made by {@link #nameFor} carries, or 0 when it carries none. */
    static int attemptOf(String name) {
        int dash = name.lastIndexOf('-');
        try {
            return dash < 0 ? 0 : Integer.parseInt(name.substring(dash + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    // ---- the hold's side (under the core's lock) ----------------------------------------------------------------

    /** {@code gang}'s request, or null when it has none. */
    public Answer answer(GangKey gang, long now) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            return e == null ? null : answerOf(e, now);
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code gang} needs room for {@code pods} (its waiting pods' names) that the nodes do not have: it gets a request
     * unless it has one (a failed one is followed by the next attempt once its backoff is over). Returns what it waits for.
     */
    public Answer need(GangKey gang, List<String> pods, long now) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (!listed) {
                return new Answer(gang, null, null, pods.size(), 0, "waiting for the autoscaler's ProvisioningRequests to be listed", false);
            }
            if (e == null) {
                e = new Entry(gang);
                entries.put(gang, e);
                request(e, 1, pods, now);
            } else if (e.phase == Phase.FAILED && now - e.notBefore >= 0) {
                request(e, e.attempt + 1, pods, now);
            } else if (e.phase == Phase.REQUESTED || e.phase == Phase.ACCEPTED) {
                e.pods = pods.size(); // an adopted request's count is learnt here
            }
            return answerOf(e, now);
        } finally {
            lock.unlock();
        }
    }

    /** {@code gang} runs: its request is done (kept while the gang lives; its pods name it). */
    public void runs(GangKey gang) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e == null || e.phase == Phase.DONE) {
                return;
            }
            if (e.phase == Phase.PROVISIONED) {
                e.phase = Phase.DONE;
            } else {
                forget(e); // it runs on room it found elsewhere: the request is of no use
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@code gang} no longer needs nodes (it fits, or is admitted) before its request is provisioned: the request goes. */
    public void withdraw(GangKey gang) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e != null && e.phase != Phase.PROVISIONED && e.phase != Phase.DONE) {
                forget(e);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- the API side ---------------------------------------------------------------------------------------------

    /**
     * The requests that exist were listed once (those of an earlier process were {@link #observed}): from now on a gang
     * that needs nodes gets a request.
     */
    public void listed() {
        lock.lock();
        try {
            listed = true;
        } finally {
            lock.unlock();
        }
    }

    /** What to create and delete now; each name at most once (the latest word on it). */
    public List<Work> drain() {
        lock.lock();
        try {
            List<Work> out = new ArrayList<>(work.values());
            work.clear();
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** {@code w} could not be done now: it is handed out again (unless something newer is to be done with its request). */
    public void again(Work w) {
        lock.lock();
        try {
            work.putIfAbsent(key(w.gang(), w.name()), w);
        } finally {
            lock.unlock();
        }
    }

    /** Seconds from each request's creation to its {@code Provisioned}, since the last call. */
    public List<Double> drainProvisionedSeconds() {
        lock.lock();
        try {
            List<Double> out = List.copyOf(provisionedSeconds);
            provisionedSeconds.clear();
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Creating {@code name} failed for {@code why}: the gang backs off and asks again. */
    public void createFailed(GangKey gang, String name, String why, long now) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e != null && name.equals(e.name) && e.phase == Phase.REQUESTED) {
                fail(e, "creating ProvisioningRequest " + gang.namespace() + "/" + name + " failed: " + why, now);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The request {@code name} of {@code gang} reads {@code status} (from the informer: also the requests an earlier
     * process made, which are adopted).
     */
    public void observed(GangKey gang, String name, RequestStatus status, long now) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e == null) {
                e = new Entry(gang); // made by an earlier process: adopted as it stands
                e.name = name;
                e.attempt = attemptOf(name);
                e.requestedAt = now;
                entries.put(gang, e);
            } else if (!name.equals(e.name)) {
                if (attemptOf(name) < e.attempt || e.phase != Phase.REQUESTED) {
                    work.put(key(gang, name), new Work.Delete(gang, name)); // an older attempt's, left behind
                    return;
                }
                // a later attempt than this process knew of (an earlier process made it): adopt it
                work.remove(key(gang, e.name));
                e.name = name;
                e.attempt = attemptOf(name);
            }
            if (status.lost()) {
                if (e.phase != Phase.DONE && e.phase != Phase.FAILED) {
                    fail(e, "ProvisioningRequest " + gang.namespace() + "/" + name + " " + status.lostBy()
                            + (status.detail().isEmpty() ? "" : " (" + status.detail() + ")"), now);
                }
                return;
            }
            if (status.provisioned() && (e.phase == Phase.REQUESTED || e.phase == Phase.ACCEPTED)) {
                e.phase = Phase.PROVISIONED;
                provisionedSeconds.add(Math.max(0, now - e.requestedAt) / 1000.0);
            } else if (status.accepted() && e.phase == Phase.REQUESTED) {
                e.phase = Phase.ACCEPTED;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The request {@code name} is gone from the API: if it was the gang's live one, someone else deleted it. */
    public void requestDeleted(GangKey gang, String name, long now) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e != null && name.equals(e.name) && e.phase != Phase.FAILED && e.phase != Phase.DONE
                    && !(work.get(key(gang, name)) instanceof Work.Create)) {
                fail(e, "ProvisioningRequest " + gang.namespace() + "/" + name + " was deleted", now);
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@code gang} (its PodGroup) is gone: its request is deleted. */
    public void gangGone(GangKey gang) {
        lock.lock();
        try {
            Entry e = entries.get(gang);
            if (e != null) {
                forget(e);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The gangs that have a request (to check against the PodGroups that exist). */
    public List<GangKey> gangs() {
        lock.lock();
        try {
            return List.copyOf(entries.keySet());
        } finally {
            lock.unlock();
        }
    }

    /** How many gangs' requests are in each phase. */
    public Map<Phase, Integer> counts() {
        lock.lock();
        try {
            Map<Phase, Integer> out = new EnumMap<>(Phase.class);
            for (Phase p : Phase.values()) {
                out.put(p, 0);
            }
            for (Entry e : entries.values()) {
                out.merge(e.phase, 1, Integer::sum);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    // ---- under lock -----------------------------------------------------------------------------------------------

    private void request(Entry e, int attempt, List<String> pods, long now) {
        e.attempt = attempt;
        e.name = nameFor(e.gang, attempt);
        e.phase = Phase.REQUESTED;
        e.pods = pods.size();
        e.requestedAt = now;
        work.put(key(e.gang, e.name), new Work.Create(e.gang, e.name, attempt, pods));
    }

    private void fail(Entry e, String why, long now) {
        e.failures++;
        Duration wait = settings.backoff().delayAfter(e.failures);
        e.notBefore = now + wait.toMillis();
        e.phase = Phase.FAILED;
        e.lastFailure = why;
        work.put(key(e.gang, e.name), new Work.Delete(e.gang, e.name));
    }

    private void forget(Entry e) {
        entries.remove(e.gang);
        if (e.name != null) {
            work.put(key(e.gang, e.name), new Work.Delete(e.gang, e.name));
        }
    }

    private static String key(GangKey gang, String name) {
        return gang.namespace() + "/" + name;
    }

    private static Answer answerOf(Entry e, long now) {
        String req = "ProvisioningRequest " + e.gang.namespace() + "/" + e.name;
        String text = switch (e.phase) {
            case FAILED -> {
                long left = Math.max(0, e.notBefore - now);
                yield "no nodes from the autoscaler: " + e.lastFailure + "; attempt " + e.attempt + " failed, asking again in "
                        + Math.max(1, (left + 999) / 1000) + "s";
            }
            default -> "waiting for " + e.pods + " nodes from the autoscaler (" + req + ": " + e.phase.word() + ")";
        };
        return new Answer(e.gang, e.name, e.phase, e.pods, e.attempt, text, e.phase == Phase.FAILED && now - e.notBefore >= 0);
    }
}
