package dev.muster.demo.cli;

import dev.muster.proto.v1.QueueInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code queues --watch} prints: a queue's line when it says something new, and at most one line per queue per
 * {@link #PER_QUEUE} (the controller sends a queue's state on every change it folds, many a second on a busy
 * cluster). A change that comes sooner waits; if the queue changes again meanwhile, only its latest line is printed,
 * when its second is up. Nothing is lost at the end: {@link #rest} gives what still waits.
 *
 * <p>Thread-safe: all state guarded by {@code this} (the stream's thread offers updates, a ticker asks for due lines).
 */
final class QueueWatchLines {
    static final Duration PER_QUEUE = Duration.ofSeconds(1);

    private record Printed(String line, long atNanos) {}

    private final Map<String, Printed> printed = new HashMap<>();
    private final Map<String, String> waiting = new LinkedHashMap<>();

    /** Takes an update at {@code nowNanos}; returns the lines due now, in order. */
    synchronized List<String> offer(QueueInfo q, long nowNanos) {
        String line = QueuesCli.line(q);
        Printed last = printed.get(q.getName());
        if (last != null && last.line().equals(line)) {
            waiting.remove(q.getName()); // back to what was printed: nothing to say
        } else {
            waiting.put(q.getName(), line);
        }
        return due(nowNanos);
    }

    /** The waiting lines whose queue has not had a line printed in the last {@link #PER_QUEUE}, in order of arrival. */
    synchronized List<String> due(long nowNanos) {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, String>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, String> e = it.next();
            Printed last = printed.get(e.getKey());
            if (last == null || nowNanos - last.atNanos() >= PER_QUEUE.toNanos()) {
                printed.put(e.getKey(), new Printed(e.getValue(), nowNanos));
                out.add(e.getValue());
                it.remove();
            }
        }
        return out;
    }

    /** Every line still waiting (the stream ended). */
    synchronized List<String> rest() {
        List<String> out = new ArrayList<>(waiting.values());
        waiting.clear();
        return out;
    }
}
