package dev.muster.common.kube;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decides when the first full sync is done, and fires {@code onSynced} exactly once.
 *
 * <p>An informer's {@code hasSynced()} turns true once its initial list is in its cache and every object has been
 * <em>queued</em> for the event handlers — but handlers run on their own threads, so the sink may not have seen the
 * last objects yet. The initial sync is therefore done when (1) every source has synced and (2) the handler has
 * processed an event for every key that was in each source's cache at that moment (the first event for an initially
 * listed key is always its add; objects deleted meanwhile are absent from the cache and need no wait). Keys are
 * recorded only until then; afterwards {@link #seen} is a no-op and the memory is released.
 *
 * <p>Thread-safe: {@link #seen} is called from informer handler threads, {@link #poll} from one polling thread;
 * all state is guarded by {@code lock}. {@code onSynced} runs on the polling thread, outside the lock.
 */
public final class InitialSync {
    /** One informer as the barrier sees it. */
    public interface Source {
        String name();

        boolean hasSynced();

        /** The keys ({@code namespace/name} or {@code name}) in the informer's cache now. */
        Collection<String> keys();

        /** A client-java informer as a source: synced when it says so, keys from its indexer. */
        static Source of(String name, io.kubernetes.client.informer.SharedIndexInformer<?> informer) {
            return new Source() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public boolean hasSynced() {
                    return informer.hasSynced();
                }

                @Override
                public Collection<String> keys() {
                    return informer.getIndexer().listKeys();
                }
            };
        }
    }

    private final List<Source> sources;
    private final Runnable onSynced;
    private final Object lock = new Object();
    private Map<String, Set<String>> seen = new HashMap<>(); // guarded by lock; null once done
    private Map<String, Set<String>> waitingFor; // guarded by lock; keys listed at hasSynced, not yet seen

    public InitialSync(List<Source> sources, Runnable onSynced) {
        this.sources = List.copyOf(sources);
        this.onSynced = Objects.requireNonNull(onSynced, "onSynced");
        for (Source s : sources) {
            seen.put(s.name(), new HashSet<>());
        }
    }

    /** The handler processed an event for {@code key} of {@code source}. */
    public void seen(String source, String key) {
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
                Set<String> keys = seen.get(source);
                if (keys != null) {
                    keys.add(key);
                }
            }
        }
    }

    public boolean isDone() {
        synchronized (lock) {
            return seen == null;
        }
    }

    /**
     * Checks progress; returns true once done. The first call that finds every source synced captures the keys to
     * wait for; the call that finds none left fires {@code onSynced} (once).
     */
    public boolean poll() {
        synchronized (lock) {
            if (seen == null) {
                return true;
            }
        }
        if (!allSynced()) {
            return false;
        }
        Map<String, Collection<String>> listed = new HashMap<>();
        boolean capture;
        synchronized (lock) {
            capture = waitingFor == null;
        }
        if (capture) {
            for (Source s : sources) {
                listed.put(s.name(), s.keys()); // informer caches are read outside our lock
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

    /** How many listed keys the handlers have not processed yet (for logs); -1 before every source synced. */
    int pending() {
        synchronized (lock) {
            if (waitingFor == null) {
                return seen == null ? 0 : -1;
            }
            return waitingFor.values().stream().mapToInt(Set::size).sum();
        }
    }

    private boolean allSynced() {
        for (Source s : sources) {
            if (!s.hasSynced()) {
                return false;
            }
        }
        return true;
    }
}
