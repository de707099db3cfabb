package dev.muster.core.scheduler;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GateHold;
import dev.muster.core.gang.GateLifts;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.model.GangKey;
import dev.muster.core.provision.ProvisionHold;
import dev.muster.core.queue.QueueAdmission;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * All-or-nothing scale-up as one of the queue-admission gate's holds ({@link GateHold}): lets every gang go until it is
 * turned on, then keeps a gang gated while it waits for the autoscaler's nodes ({@link ProvisionHold}) and gives the
 * lift the pods' annotations. Confined to the core's lock (every method is called under it, the hold is written under
 * it).
 *
 * <p><b>One answer per tick.</b> During a tick ({@link #tick}) the admission pass, the gate's sweep and {@link #ask}
 * each want the hold's reason for a gang; the first answer is kept and serves the others, so the hold (which may reserve
 * room, make or withdraw a request) is asked once per gang per tick. The answers are dropped when the tick ends; outside
 * a tick (a pass run because room came free, say) every call asks.
 */
final class ProvisioningGate implements GateHold {
    private GateHold hold; // null: all-or-nothing scale-up is off
    private boolean ticking;
    private final Map<GangKey, String> answers = new HashMap<>(); // this tick's answers (null values: let go)
    private Map<GangKey, String> held = Map.of(); // the gangs the last tick's ask found held, and why

    void turnOn(GateHold hold) {
        this.hold = hold;
    }

    @Override
    public String reason(Gang gang, long now) {
        if (hold == null) {
            return null;
        }
        if (!ticking) {
            return hold.reason(gang, now);
        }
        if (answers.containsKey(gang.key())) {
            return answers.get(gang.key());
        }
        String why = hold.reason(gang, now);
        answers.put(gang.key(), why);
        return why;
    }

    /**
     * Runs {@code tick} with one answer per gang, then, if {@code mayAsk} (synced and leading, as the gate's lift is),
     * {@link #ask}s with the same answers and keeps what it found.
     */
    void tick(Runnable tick, boolean mayAsk, Books books, WaitingLine line, ClusterFeed feed, long now) {
        answers.clear();
        ticking = true;
        try {
            tick.run();
        } finally {
            try {
                held = hold != null && mayAsk ? Map.copyOf(ask(books, line, feed, now)) : Map.of();
            } finally {
                ticking = false;
                answers.clear();
            }
        }
    }

    /** The gangs the last tick found held for nodes, and why. */
    Map<GangKey, String> held() {
        return held;
    }

    @Override
    public boolean claimsRoom(Gang gang) {
        return hold != null && hold.claimsRoom(gang);
    }

    @Override
    public Map<String, String> annotations(Gang gang) {
        return hold == null ? Map.of() : hold.annotations(gang);
    }

    /**
     * Asks the hold (if on) about every gang that runs, and every gang that waits behind Muster's gate whose queue admits
     * it, as the gate's lift asks its holds: requests are made, followed and withdrawn. Returns the reason each gang it
     * holds is held for. A waiting gang whose pods carry no gate of Muster's (made before the gate was on, or past it) is
     * not asked: cluster-autoscaler sees those pods pending and buys nodes for them itself, and a request made for them
     * too would buy their nodes twice (the pods would not carry the annotation that counts them against it).
     */
    Map<GangKey, String> ask(Books books, WaitingLine line, ClusterFeed feed, long now) {
        Map<GangKey, String> out = new TreeMap<>();
        if (hold == null) {
            return out;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(now);
        for (Gang g : List.copyOf(books.gangs())) {
            boolean asked = g.spec() != null && (g.running() || line.waiting(g, now) && GateLifts.gatedByMuster(books, g)
                    && books.queueVerdict(g.queue(), line.needOf(g), g.key()) instanceof QueueAdmission.Verdict.Admitted);
            boolean admitted = books.admitted(g);
            String why = asked ? reason(g, millis) : null;
            if (why != null) {
                out.put(g.key(), why);
            } else if (asked && !admitted && books.admitted(g)) {
                // its provisioned room was reserved here, not at a filter: pods the filter refused are tried again now
                feed.wakeGang(g.key(), "gang " + g.key() + ": the autoscaler's room is reserved for it");
            }
        }
        return out;
    }
}
