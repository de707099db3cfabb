package dev.muster.core.gang;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Waiting gangs in line order, taken one at a time. Within a queue the order never changes while it is taken (higher
 * priority, then the older gang), so each queue is one sorted list and a cursor; across queues each step takes the best
 * front — higher priority, then the queue furthest below its fair share <em>now</em> (its ratio read at that step),
 * then the older gang. So gangs admitted from it interleave queues by how far each is below its share. O(gangs log
 * gangs) to sort, O(queues) a step; most passes stop early. Confined to the core's lock, like the {@link WaitingLine}
 * that makes it.
 */
public final class LineOrder {
    /** Line order within one queue: higher priority first (as of the gang's last {@link Gang.LinePlace}), then the older gang. */
    static final Comparator<Gang> WITHIN_QUEUE = (a, b) -> compare(a, 0, b, 0);

    private final List<String> queues = new ArrayList<>();
    private final List<List<Gang>> lines = new ArrayList<>();
    private final int[] taken; // per queue, how many of its line were polled
    private final ToDoubleFunction<String> ratio;

    /** @param sorted each queue's gangs, already sorted by {@link #WITHIN_QUEUE}; read, never changed */
    LineOrder(Map<String, List<Gang>> sorted, ToDoubleFunction<String> ratio) {
        this.ratio = ratio;
        sorted.forEach((q, gangs) -> {
            queues.add(q);
            lines.add(gangs);
        });
        this.taken = new int[queues.size()];
    }

    /** These gangs in line order: grouped by queue, each queue's sorted (the lists are the caller's to keep). */
    static LineOrder of(List<Gang> gangs, ToDoubleFunction<String> ratio) {
        return new LineOrder(sortedByQueue(gangs), ratio);
    }

    /**
     * The gangs by queue, each queue's list sorted by {@link #WITHIN_QUEUE}. Each gang's key is copied once before the
     * sort, so comparisons read the copies side by side instead of each gang and its place: the tick sorts every waiting
     * gang.
     */
    static Map<String, List<Gang>> sortedByQueue(List<Gang> gangs) {
        Map<String, List<Placed>> byQueue = new HashMap<>();
        for (Gang g : gangs) {
            byQueue.computeIfAbsent(g.queue(), q -> new ArrayList<>()).add(new Placed(g, g.place.priority, g.arrival()));
        }
        Map<String, List<Gang>> sorted = new HashMap<>(byQueue.size() * 2);
        byQueue.forEach((q, placed) -> {
            placed.sort(Placed.WITHIN_QUEUE);
            List<Gang> line = new ArrayList<>(placed.size());
            for (Placed p : placed) {
                line.add(p.gang());
            }
            sorted.put(q, line);
        });
        return sorted;
    }

    /** A gang with the keys of {@link #WITHIN_QUEUE}, copied for one sort. */
    private record Placed(Gang gang, int priority, long arrival) {
        static final Comparator<Placed> WITHIN_QUEUE = (a, b) -> compare(a.priority, 0, a.arrival, b.priority, 0, b.arrival);
    }

    public boolean isEmpty() {
        for (int i = 0; i < taken.length; i++) {
            if (taken[i] < lines.get(i).size()) {
                return false;
            }
        }
        return true;
    }

    /** The next gang in line (taken), or null when none is left. */
    public Gang poll() {
        int best = -1;
        double bestRatio = 0;
        for (int i = 0; i < taken.length; i++) {
            List<Gang> line = lines.get(i);
            if (taken[i] == line.size()) {
                continue;
            }
            double r = ratio.applyAsDouble(queues.get(i));
            if (best < 0 || compare(line.get(taken[i]), r, lines.get(best).get(taken[best]), bestRatio) < 0) {
                best = i;
                bestRatio = r;
            }
        }
        return best < 0 ? null : lines.get(best).get(taken[best]++);
    }

    /**
     * Line order of two gangs whose queues stand at ratios {@code ra} and {@code rb}: higher priority, then the queue
     * furthest below its fair share, then the older gang.
     */
    static int compare(Gang a, double ra, Gang b, double rb) {
        return compare(a.place.priority, ra, a.arrival(), b.place.priority, rb, b.arrival());
    }

    /**
     * Line order of two places in line, each a priority, its queue's ratio (held ÷ fair share) and an arrival: higher
     * priority, then the queue furthest below its fair share, then the older.
     */
    public static int compare(int priorityA, double ratioA, long arrivalA, int priorityB, double ratioB, long arrivalB) {
        int c = Integer.compare(priorityB, priorityA);
        if (c == 0) {
            c = Double.compare(ratioA, ratioB);
        }
        return c != 0 ? c : Long.compare(arrivalA, arrivalB);
    }
}
