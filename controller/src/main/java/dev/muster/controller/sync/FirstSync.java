package dev.muster.controller.sync;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decides when the informers' first lists have been <em>handled</em>, not just cached, and fires once.
 *
 * <p>An informer's {@code hasSynced()} turns true once its list is cached and queued for the handlers, which run
 * on their own threads. The first sync is therefore done when every source has synced and the handler has
 * processed an event for every key that was in each cache at that moment (objects deleted meanwhile are no longer
 * cached and need no wait). The same rule as the extender's {@code server.sync.InitialSync}, which lives in the
 * server module.
 *
 * <p>Thread-safe: {@link #seen} is called from handler threads, {@link #poll} from one polling thread; state is
 * guarded by {@code lock}; {@code onSynced} runs on the polling thread, outside the lock.
 */
final class FirstSync {
    /** One informer as the barrier sees it. */
    interface Source {
        String name();

        boolean hasSynced();

        Collection<String> keys();
    }

    private final List<Source> sources;
    private final Runnable onSynced;
    private final Object lock = new Object();
    private Map<String, Set<String>> seen = new HashMap<>(); // guarded by lock; null once done
    private Map<String, Set<String>> waitingFor; // guarded by lock

    FirstSync(List<Source> sources, Runnable onSynced) {
        this.sources = List.copyOf(sources);
        this.onSynced = Objects.requireNonNull(onSynced, "onSynced");
        for (Source s : sources) {
            seen.put(s.name(), new HashSet<>());
        }
    }

    void seen(String source, String key) {
        synchronized (lock) {
            if (seen == null) {
                return;
            }
            if (waitingFor != null) {
                Set<String> waiting = waitingFor.get(source);
                if (waiting != null) {
                    waiting.remove(key);
                }
            } else {
                seen.get(source).add(key);
            }
        }
    }

    boolean isDone() {
        synchronized (lock) {
            return seen == null;
        }
    }

    /** Checks progress; true once done (the call that gets there fires {@code onSynced}). */
    boolean poll() {
        synchronized (lock) {
            if (seen == null) {
                return true;
            }
        }
        for (Source s : sources) {
            if (!s.hasSynced()) {
                return false;
            }
        }
        Map<String, Collection<String>> listed = new HashMap<>();
        boolean capture;
        synchronized (lock) {
            capture = waitingFor == null;
        }
        if (capture) {
            for (Source s : sources) {
                listed.put(s.name(), s.keys()); // read outside our lock
            }
        }
        synchronized (lock) {
            if (seen == null) {
                return true;
            }
            if (waitingFor == null) {
                waitingFor = new HashMap<>();
                for (Source s : sources) {
                    Set<String> waiting = new HashSet<>(listed.get(s.name()));
                    waiting.removeAll(seen.get(s.name()));
                    waitingFor.put(s.name(), waiting);
                }
            }
            for (Set<String> waiting : waitingFor.values()) {
                if (!waiting.isEmpty()) {
                    return false;
                }
            }
            seen = null;
            waitingFor = null;
        }
        onSynced.run();
        return true;
    }
}
