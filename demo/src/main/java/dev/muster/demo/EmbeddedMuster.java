package dev.muster.demo;

import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.controller.Controller;
import dev.muster.controller.stream.AllocationStreamClient;
import dev.muster.core.time.BackoffCounter;
import dev.muster.controller.writer.WriterMetrics;
import dev.muster.core.time.Backoff;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.demo.cluster.ClusterBinder;
import dev.muster.demo.cluster.ClusterStatusPatcher;
import dev.muster.demo.cluster.ControllerFeed;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.demo.cluster.ExtenderFeed;
import dev.muster.demo.cluster.Watch;
import dev.muster.server.ExtenderProcess;
import dev.muster.server.leader.Leadership;
import dev.muster.server.ServerDefaults;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The real extender and the real controller on an {@link EmbeddedCluster}, wired as in a cluster: the cluster
 * feeds both through watches, binds for the extender, evicts for it (when the options give an evictor: preemption and
 * reclaim as in a cluster) and stores the controller's status writes; the controller
 * follows the extender's allocation stream over gRPC (a real {@link AllocationStreamClient} on a real socket)
 * and serves the Queues service on its own gRPC port. Both processes lead (one replica each, no Lease).
 *
 * <p>Lifecycle: {@link #start} returns once both are ready (extender synced, controller warm and writing);
 * {@link #close} stops everything it started, in reverse order. Thread-safe after start (its parts are).
 */
public final class EmbeddedMuster implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EmbeddedMuster.class.getName());

    /** Where to listen: port 0 picks a free port. */
    public record Ports(String host, int http, int ops, int extenderGrpc, int controllerGrpc) {
        public static Ports anyLoopback() {
            return new Ports("127.0.0.1", 0, 0, 0, 0);
        }
    }

    /**
     * Settings of the two processes that the scenario controls. {@code preemption} is what the extender may do to take
     * room back, and {@code evictor} how it evicts ({@link Evictor#NONE}: it never preempts, whatever {@code preemption}
     * says). The embedded cluster has no PodDisruptionBudgets.
     */
    public record Options(Duration gangDeadline, Duration flushInterval, Controller.Settings controller, Duration setAsideAfter,
                          PreemptionSettings preemption, Evictor evictor) {
        public Options {
            java.util.Objects.requireNonNull(preemption, "preemption");
            java.util.Objects.requireNonNull(evictor, "evictor");
        }

        /** No preemption. */
        public Options(Duration gangDeadline, Duration flushInterval, Controller.Settings controller, Duration setAsideAfter) {
            this(gangDeadline, flushInterval, controller, setAsideAfter, PreemptionSettings.OFF, Evictor.NONE);
        }

        /** No preemption. */
        public Options(Duration gangDeadline, Duration flushInterval, Controller.Settings controller) {
            this(gangDeadline, flushInterval, controller, SchedulerConfig.DEFAULT_SET_ASIDE_AFTER);
        }
    }

    private final ExecutorService binds = Executors.newVirtualThreadPerTaskExecutor();
    private final ExecutorService queueWatches = Executors.newVirtualThreadPerTaskExecutor();
    private String host;
    private ExtenderProcess extender;
    private Watch extenderWatch;
    private Controller controller;
    private Watch controllerWatch;
    private AllocationStreamClient stream;
    private ManagedGrpcServer controllerGrpc;

    private EmbeddedMuster() {}

    /**
     * Starts both processes on {@code cluster} and waits until they are ready.
     *
     * @param alsoListening receives the same allocation stream as the controller (the demo's recorder), or null
     */
    public static EmbeddedMuster start(EmbeddedCluster cluster, Ports ports, Options options, AllocationListener alsoListening)
            throws IOException, InterruptedException {
        EmbeddedMuster m = new EmbeddedMuster();
        try {
            m.startParts(cluster, ports, options, alsoListening);
            return m;
        } catch (IOException | InterruptedException | RuntimeException e) {
            m.close();
            throw e;
        }
    }

    private void startParts(EmbeddedCluster cluster, Ports ports, Options options, AllocationListener alsoListening)
            throws IOException, InterruptedException {
        host = ports.host();
        SchedulerConfig config = SchedulerConfig.DEFAULT.withGangDeadline(options.gangDeadline()).withBackoff(Backoff.DEFAULT)
                .withSetAsideAfter(options.setAsideAfter()).withPreemption(options.preemption());
        ExtenderProcess.Settings settings = new ExtenderProcess.Settings(ports.host(), ports.http(), null, ports.ops(), ports.extenderGrpc(),
                Optional.empty(), config, ServerDefaults.MAX_BODY_BYTES, ServerDefaults.JOURNAL_WINDOW, Duration.ofMillis(200),
                false); // the embedded scheduler binds every pod through the bind verb
        ExtenderProcess.Core core = ExtenderProcess.Core.of(settings, new ClusterBinder(cluster, binds), options.evictor(), DisruptionBudgets.NONE);
        extender = new ExtenderProcess(settings, core, Leadership.ALWAYS, new CollectorRegistry());
        extenderWatch = cluster.watch("extender", new ExtenderFeed(extender.scheduler()));

        controller = new Controller(options.controller(), new ClusterStatusPatcher(cluster), Clock.systemUTC(), System::nanoTime,
                queueWatches, WriterMetrics.NONE);
        controller.setLeading(true);
        controllerWatch = cluster.watch("controller", new ControllerFeed(controller.cluster()));
        String target = ports.host() + ":" + extender.grpcPort();
        AllocationListener listener = alsoListening == null ? controller.allocations() : new Tee(List.of(controller.allocations(), alsoListening));
        stream = new AllocationStreamClient(target, AllocationStreamClient.ChannelFactory.netty(Optional.empty(), target), listener,
                BackoffCounter.DEFAULT);
        stream.start();
        await("the extender's first sync", () -> extender.scheduler().isSynced());
        await("the allocation stream to connect", stream::isConnected);
        await("the controller to be ready", controller::writing);
        controller.startFlushing(options.flushInterval());
        controllerGrpc = GrpcServers.build(GrpcServers.netty(new InetSocketAddress(ports.host(), ports.controllerGrpc()), Optional.empty()),
                controller.queuesService()).start();
        controllerGrpc.setServing(true);
        LOG.log(System.Logger.Level.INFO, "embedded muster ready: extender HTTP " + extender.httpPort() + ", gRPC " + extender.grpcPort()
                + "; controller gRPC " + controllerGrpc.port());
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after 30s waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    public ExtenderProcess extender() {
        return extender;
    }

    public Controller controller() {
        return controller;
    }

    public AllocationStreamClient stream() {
        return stream;
    }

    /** The extender's verbs, e.g. {@code http://127.0.0.1:8888}. */
    public String extenderUrl() {
        return "http://" + host + ":" + extender.httpPort();
    }

    /** Handler calls that threw in the two processes' watches. */
    public long watchFailures() {
        return (extenderWatch == null ? 0 : extenderWatch.failures()) + (controllerWatch == null ? 0 : controllerWatch.failures());
    }

    public int controllerGrpcPort() {
        return controllerGrpc.port();
    }

    @Override
    public void close() {
        if (stream != null) {
            try {
                stream.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (controllerGrpc != null) {
            try {
                controllerGrpc.shutdown(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (controllerWatch != null) {
            controllerWatch.close();
        }
        if (controller != null) {
            controller.close();
        }
        if (extenderWatch != null) {
            extenderWatch.close();
        }
        if (extender != null) {
            extender.close();
        }
        binds.shutdownNow();
        queueWatches.shutdownNow();
    }

    /** Hands the stream to several listeners, in order. */
    private record Tee(List<AllocationListener> listeners) implements AllocationListener {
        Tee {
            listeners = List.copyOf(listeners);
            listeners.forEach(l -> Objects.requireNonNull(l, "listener"));
        }

        @Override
        public void onSnapshot(AllocationSnapshot snapshot) {
            listeners.forEach(l -> l.onSnapshot(snapshot));
        }

        @Override
        public void onEvent(SequencedEvent event) {
            listeners.forEach(l -> l.onEvent(event));
        }

        @Override
        public void onCaughtUp() {
            listeners.forEach(AllocationListener::onCaughtUp);
        }
    }
}
