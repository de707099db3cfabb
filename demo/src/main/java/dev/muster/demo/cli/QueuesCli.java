package dev.muster.demo.cli;

import dev.muster.common.config.Flags;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.proto.v1.GangInfo;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GangState;
import dev.muster.proto.v1.GetGangRequest;
import dev.muster.proto.v1.ListGangsRequest;
import dev.muster.proto.v1.ListQueuesRequest;
import dev.muster.proto.v1.QueueInfo;
import dev.muster.proto.v1.QueuePreemptions;
import dev.muster.proto.v1.QueuesGrpc;
import dev.muster.proto.v1.ResourceList;
import dev.muster.proto.v1.WatchQueuesRequest;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@code queues [--watch] [--controller host:port]}, {@code gangs [--all] [--controller host:port]} and
 * {@code gang NAMESPACE/NAME [--controller host:port]}: the
 * controller's Queues service over plaintext gRPC. A queue's line ends with what preemption took from it and gave to it
 * since the controller started (pods, and the room they held). Exit codes: 0 done, 1 the call failed (the message says why),
 * 2 bad arguments. Stateless.
 */
public final class QueuesCli {
    public static final String DEFAULT_CONTROLLER = "127.0.0.1:9091";
    /** The PodGroup phase of a gang whose members have all finished. */
    static final String FINISHED = PodGroupPhase.COMPLETED.wire();

    private QueuesCli() {}

    public static int queues(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        Flags flags = Flags.parse(args, Set.of("controller", "watch"), env);
        String target = flags.string("controller", DEFAULT_CONTROLLER);
        boolean watch = flags.bool("watch", false);
        ManagedChannel channel = GrpcChannels.open(target, Optional.empty(), null);
        try {
            QueuesGrpc.QueuesBlockingStub stub = QueuesGrpc.newBlockingStub(channel);
            if (!watch) {
                List<QueueInfo> queues = stub.withDeadlineAfter(10, TimeUnit.SECONDS).list(ListQueuesRequest.getDefaultInstance()).getQueuesList();
                out.print(table(queues));
                return 0;
            }
            Iterator<QueueInfo> updates = stub.watch(WatchQueuesRequest.getDefaultInstance());
            out.println("watching queues at " + target + " (Ctrl-C stops)");
            printChanges(updates, out, () -> LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString(), System::nanoTime, true);
            return 0;
        } catch (StatusRuntimeException e) {
            err.println("muster queues: " + explain(e, target));
            return 1;
        } finally {
            channel.shutdownNow();
        }
    }

    public static int gang(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.isEmpty() || args.getFirst().startsWith("--")) {
            err.println("muster gang: which gang? write gang NAMESPACE/NAME");
            return 2;
        }
        String ref = args.getFirst();
        int slash = ref.indexOf('/');
        if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
            err.println("muster gang: \"" + ref + "\" is not NAMESPACE/NAME");
            return 2;
        }
        Flags flags = Flags.parse(args.subList(1, args.size()), Set.of("controller"), env);
        String target = flags.string("controller", DEFAULT_CONTROLLER);
        ManagedChannel channel = GrpcChannels.open(target, Optional.empty(), null);
        try {
            GangInfo g = QueuesGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).getGang(GetGangRequest.newBuilder()
                    .setGang(GangRef.newBuilder().setNamespace(ref.substring(0, slash)).setName(ref.substring(slash + 1))).build());
            out.print(gang(g));
            return 0;
        } catch (StatusRuntimeException e) {
            err.println("muster gang: " + explain(e, target));
            return 1;
        } finally {
            channel.shutdownNow();
        }
    }

    /**
     * {@code gangs [--all] [--controller host:port]}: every gang the controller knows, one line each, the ones that do
     * not run yet first with the scheduler's reason; finished gangs only with {@code --all}.
     */
    public static int gangs(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        Flags flags = Flags.parse(args, Set.of("controller", "all"), env);
        String target = flags.string("controller", DEFAULT_CONTROLLER);
        boolean all = flags.bool("all", false);
        ManagedChannel channel = GrpcChannels.open(target, Optional.empty(), null);
        try {
            List<GangInfo> gangs = QueuesGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .listGangs(ListGangsRequest.getDefaultInstance()).getGangsList();
            out.print(gangs(gangs, all));
            return 0;
        } catch (StatusRuntimeException e) {
            err.println("muster gangs: " + explain(e, target));
            return 1;
        } finally {
            channel.shutdownNow();
        }
    }

    /** The {@code gangs} table: not yet running (Pending, Inqueue, Unknown) first, then Running, then (with {@code all}) Completed; by name within each. */
    static String gangs(List<GangInfo> gangs, boolean all) {
        List<GangInfo> shown = gangs.stream().filter(g -> all || !FINISHED.equals(g.getPhase()))
                .sorted(java.util.Comparator.comparingInt((GangInfo g) -> phaseOrder(g.getPhase()))
                        .thenComparing(g -> g.getGang().getNamespace()).thenComparing(g -> g.getGang().getName()))
                .toList();
        int hidden = gangs.size() - shown.size();
        if (shown.isEmpty()) {
            return gangs.isEmpty() ? "no gangs\n" : "no gang waits or runs (" + hidden + " finished: --all shows them)\n";
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"GANG", "QUEUE", "PHASE", "MIN", "RUNNING", "SUCCEEDED", "FAILED", "SCHEDULER", "REASON"});
        for (GangInfo g : shown) {
            boolean finished = FINISHED.equals(g.getPhase());
            rows.add(new String[] {g.getGang().getNamespace() + "/" + g.getGang().getName(), g.getQueue(), g.getPhase(),
                Integer.toString(g.getMinMember()), Integer.toString(g.getRunning()), Integer.toString(g.getSucceeded()),
                Integer.toString(g.getFailed()), finished ? "-" : state(g), finished || g.getReason().isEmpty() ? "-" : g.getReason()});
        }
        return Table.of(rows) + (hidden > 0 ? hidden + " finished gangs not shown (--all shows them)\n" : "");
    }

    private static int phaseOrder(String phase) {
        return switch (phase) {
            case "Running" -> 1;
            case "Completed" -> 2;
            default -> 0; // Pending, Inqueue, Unknown: not running yet
        };
    }

    private static String state(GangInfo g) {
        return g.getState() == GangState.GANG_STATE_UNSPECIFIED ? "-" : g.getState().name().replace("GANG_STATE_", "");
    }

    /**
     * The PodGroup phase first; then the scheduler's state of the gang and why, only while the gang has not finished
     * (a Completed gang holds nothing in the scheduler any more, whose last word on it may be an old WAITING).
     */
    static String gang(GangInfo g) {
        boolean finished = FINISHED.equals(g.getPhase());
        String state = g.getState() == GangState.GANG_STATE_UNSPECIFIED ? "-" : g.getState().name().replace("GANG_STATE_", "");
        StringBuilder sb = new StringBuilder();
        sb.append("gang       ").append(g.getGang().getNamespace()).append('/').append(g.getGang().getName()).append('\n');
        sb.append("queue      ").append(g.getQueue()).append('\n');
        sb.append("phase      ").append(g.getPhase()).append('\n');
        sb.append("scheduler  ").append(finished ? "- (finished: nothing is held or planned for it)" : state).append('\n');
        sb.append("reason     ").append(finished || g.getReason().isEmpty() ? "-" : g.getReason()).append('\n');
        sb.append("minMember  ").append(g.getMinMember()).append('\n');
        sb.append("pods       ").append(g.getRunning()).append(" running, ").append(g.getSucceeded()).append(" succeeded, ")
                .append(g.getFailed()).append(" failed\n");
        return sb.toString();
    }

    /**
     * A line when a queue's line changes (the controller repeats unchanged queues), at most one per queue per second
     * ({@link QueueWatchLines}). With {@code ticker}, a daemon thread prints a change held back as soon as its second is
     * up; at the end of the stream whatever still waits is printed.
     */
    static void printChanges(Iterator<QueueInfo> updates, PrintStream out, Supplier<String> clock, LongSupplier nanoTime, boolean ticker) {
        QueueWatchLines lines = new QueueWatchLines();
        java.util.function.Consumer<List<String>> print = due -> {
            synchronized (out) {
                due.forEach(l -> out.println(clock.get() + "  " + l));
            }
        };
        ScheduledExecutorService tick = ticker ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "queues-watch-tick");
            t.setDaemon(true);
            return t;
        }) : null;
        try {
            if (tick != null) {
                tick.scheduleWithFixedDelay(() -> print.accept(lines.due(nanoTime.getAsLong())), 200, 200, TimeUnit.MILLISECONDS);
            }
            while (updates.hasNext()) {
                print.accept(lines.offer(updates.next(), nanoTime.getAsLong()));
            }
        } finally {
            if (tick != null) {
                tick.shutdownNow();
            }
            print.accept(lines.rest());
        }
    }

    static String table(List<QueueInfo> queues) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NAME", "STATE", "WEIGHT", "ALLOCATED", "CAPABILITY", "FAIR SHARE", "BORROWED", "PENDING", "INQUEUE", "RUNNING",
            "COMPLETED", "RESERVATIONS", "LOST TO RECLAIM", "WON BY RECLAIM", "PREEMPTED"});
        for (QueueInfo q : queues) {
            QueuePreemptions p = q.getPreemptions();
            rows.add(new String[] {q.getName(), q.getState(), Integer.toString(q.getWeight()), resources(q.getAllocated(), q.getCapability()),
                q.hasCapability() ? resources(q.getCapability(), q.getAllocated()) : "unlimited", fairShare(q), borrowed(q),
                Integer.toString(q.getPending()), Integer.toString(q.getInqueue()),
                Integer.toString(q.getRunning()), Integer.toString(q.getCompleted()), Integer.toString(q.getReservations()),
                evicted(p.getLostToReclaimPods(), p.getLostToReclaim(), q.getAllocated()),
                evicted(p.getWonByReclaimPods(), p.getWonByReclaim(), q.getAllocated()),
                evicted(p.getPreemptedPods(), p.getPreempted(), q.getAllocated())});
        }
        return Table.of(rows);
    }

    static String line(QueueInfo q) {
        if (q.getDeleted()) {
            return q.getName() + " deleted";
        }
        return q.getName() + " " + q.getState() + " allocated " + resources(q.getAllocated(), q.getCapability()) + " of "
                + (q.hasCapability() ? resources(q.getCapability(), q.getAllocated()) : "unlimited") + "; fair share " + fairShare(q)
                + ", borrowed " + borrowed(q) + "; podgroups pending " + q.getPending() + ", inqueue "
                + q.getInqueue() + ", running " + q.getRunning() + ", completed " + q.getCompleted() + "; reservations " + q.getReservations()
                + preemptions(q);
    }

    /** What preemption took and gave, only once it did anything: {@code ; lost to reclaim 2 (cpu=4), ...}. */
    static String preemptions(QueueInfo q) {
        QueuePreemptions p = q.getPreemptions();
        if (p.getLostToReclaimPods() == 0 && p.getWonByReclaimPods() == 0 && p.getPreemptedPods() == 0) {
            return "";
        }
        return "; lost to reclaim " + evicted(p.getLostToReclaimPods(), p.getLostToReclaim(), q.getAllocated())
                + ", won by reclaim " + evicted(p.getWonByReclaimPods(), p.getWonByReclaim(), q.getAllocated())
                + ", preempted " + evicted(p.getPreemptedPods(), p.getPreempted(), q.getAllocated());
    }

    /** {@code 2 (cpu=4,memory=8Gi)}: pods and the room they held; "0" for none. */
    static String evicted(int pods, ResourceList room, ResourceList alongside) {
        return pods == 0 ? "0" : pods + " (" + resources(room, alongside) + ")";
    }

    /**
     * The queue's fair share by weight as the extender last reported it (in the units of its allocation), or "-" before
     * the extender has reported one.
     */
    static String fairShare(QueueInfo q) {
        return q.hasFairShare() ? resources(q.getFairShare(), q.getAllocated()) : "-";
    }

    /** What the queue holds beyond its fair share ("0": nothing borrowed; "-" before the extender reported a share). */
    static String borrowed(QueueInfo q) {
        return q.hasFairShare() || q.hasBorrowed() ? resources(q.getBorrowed(), q.getAllocated()) : "-";
    }

    /**
     * {@code cpu=12.5,memory=1.5Gi,nvidia.com/gpu=4} (pods left out); "0" when empty. Each resource is written in the
     * unit it has in {@code alongside} too (a queue's allocation beside its capability), see {@link SharedUnits}.
     */
    static String resources(ResourceList r, ResourceList alongside) {
        List<String> parts = new ArrayList<>();
        new TreeMap<>(r.getAmountsMap()).forEach((name, amount) -> {
            if (!name.equals("pods") && amount != 0) {
                parts.add(name + "=" + SharedUnits.of(name, amount, alongside.getAmountsOrDefault(name, 0)).format(amount));
            }
        });
        return parts.isEmpty() ? "0" : String.join(",", parts);
    }

    private static String explain(StatusRuntimeException e, String target) {
        return switch (e.getStatus().getCode()) {
            case UNAVAILABLE -> "cannot reach the controller at " + target + " (" + e.getStatus().getDescription()
                    + "); is `serve --embedded` running, or is --controller right?";
            case NOT_FOUND, INVALID_ARGUMENT -> e.getStatus().getDescription();
            case DEADLINE_EXCEEDED -> "the controller at " + target + " did not answer within 10s";
            default -> e.getStatus().getCode() + ": " + e.getStatus().getDescription();
        };
    }
}
