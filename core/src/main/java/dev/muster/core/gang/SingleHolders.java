package dev.muster.core.gang;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The single pods (no gang) that hold room, by scheduler and priority, the most recently placed first within a
 * priority: what a preemption may take from, found without reading every pod. Kept incrementally by {@link Books}
 * as records come and go ({@link Books#allocated}, {@link Books#deallocated}) and as a pod's observation names its
 * scheduler and priority; a reader checks each uid against the books (an entry may be a step behind a pod's last
 * observation, never missing for a record). A change costs O(log pods); reading the pods of one scheduler below a
 * priority costs O(log pods) to start and O(1) a pod. Confined to the core's lock.
 */
public final class SingleHolders {
    /** A single pod holding room: its uid, its priority, and since when it holds room (the core's clock). */
    public record Entry(String uid, int priority, long since) {}

    /** The most recently placed first, then by uid (written out: every bound single pod is filed, a restart files all). */
    private static final Comparator<Entry> NEWEST_FIRST = (a, b) -> a.since() != b.since() ? Long.compare(b.since(), a.since())
            : a.uid().compareTo(b.uid());

    private final Map<String, NavigableMap<Integer, NavigableSet<Entry>>> bySchedulerAndPriority = new HashMap<>();
    private final Map<String, String> schedulerOf = new HashMap<>(); // uid → the scheduler it is filed under
    private final Map<String, Entry> entries = new HashMap<>();

    /** Files (or refiles) the pod; nothing changes when it is filed so already. */
    void put(String uid, String scheduler, int priority, long since) {
        Entry old = entries.get(uid);
        if (old != null && old.priority() == priority && old.since() == since && scheduler.equals(schedulerOf.get(uid))) {
            return;
        }
        remove(uid);
        Entry e = new Entry(uid, priority, since);
        entries.put(uid, e);
        schedulerOf.put(uid, scheduler);
        bySchedulerAndPriority.computeIfAbsent(scheduler, s -> new TreeMap<>())
                .computeIfAbsent(priority, p -> new TreeSet<>(NEWEST_FIRST)).add(e);
    }

    /** Forgets the pod (no record any more). */
    void remove(String uid) {
        Entry e = entries.remove(uid);
        if (e == null) {
            return;
        }
        String scheduler = schedulerOf.remove(uid);
        NavigableMap<Integer, NavigableSet<Entry>> byPriority = bySchedulerAndPriority.get(scheduler);
        NavigableSet<Entry> same = byPriority.get(e.priority());
        same.remove(e);
        if (same.isEmpty()) {
            byPriority.remove(e.priority());
            if (byPriority.isEmpty()) {
                bySchedulerAndPriority.remove(scheduler);
            }
        }
    }

    /** Whether the pod is filed. */
    boolean contains(String uid) {
        return entries.containsKey(uid);
    }

    public int size() {
        return entries.size();
    }

    /**
     * The pods of {@code scheduler} with priority below {@code below} that hold room since {@code heldBy} or earlier:
     * lowest priority first, and within a priority the most recently placed first. Lazy: read only as far as needed
     * (and not past a change of the books).
     */
    public Iterator<Entry> below(String scheduler, int below, long heldBy) {
        NavigableMap<Integer, NavigableSet<Entry>> byPriority = bySchedulerAndPriority.get(scheduler);
        if (byPriority == null) {
            return Collections.emptyIterator();
        }
        List<NavigableSet<Entry>> levels = new ArrayList<>(byPriority.headMap(below, false).values());
        Entry from = new Entry("", 0, heldBy); // NEWEST_FIRST: entries at or after it held room since heldBy or earlier
        return new Iterator<>() {
            private int level;
            private Iterator<Entry> current = Collections.emptyIterator();

            @Override
            public boolean hasNext() {
                while (!current.hasNext() && level < levels.size()) {
                    current = levels.get(level++).tailSet(from, true).iterator();
                }
                return current.hasNext();
            }

            @Override
            public Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return current.next();
            }
        };
    }
}
