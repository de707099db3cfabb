package dev.muster.server;

import dev.muster.common.ops.OpsEndpoints;
import dev.muster.common.ops.OpsServer;
import dev.muster.common.rpc.CallerCheck;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.common.rpc.ServerTls;
import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CertificateFiles;
import dev.muster.common.tls.CipherOrder;
import dev.muster.core.gang.Binder;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.grpc.DryRunLimiter;
import dev.muster.server.grpc.ExtenderGrpcService;
import dev.muster.server.http.ExtenderHttpServer;
import dev.muster.server.http.ExtenderMetrics;
import dev.muster.server.http.ExtenderVerbs;
import dev.muster.server.http.LeaderForwarder;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * The extender process, assembled from its parts and independent of where the cluster comes from: the
 * {@link GangScheduler} and its journal; the HTTP verbs (kube-scheduler), the ops port, and gRPC
 * (Extender, Allocations, health, reflection); a ticker that expires reservations. Cluster sync, the
 * binder and the evictor are given from outside — the Kubernetes adapters in {@link ServerMain}, the embedded cluster in
 * the demo. {@link #close()} stops everything it started.
 */
public final class ExtenderProcess implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExtenderProcess.class.getName());

    /**
     * Where to listen and how to decide. Port 0 picks a free port. {@code gangMarker}: see {@link ServerConfig#gangMarker()}
     * (false where a test or the demo binds every pod through the bind verb).
     */
    public record Settings(String bindHost, int httpPort, CertificateFiles httpTls, int opsPort, int grpcPort, Optional<ServerTls> grpcTls,
                           SchedulerConfig scheduler, long maxBodyBytes, int journalWindow, Duration tick, boolean gangMarker,
                           CallerRoles callers, DryRunLimiter.Limit dryRunLimit) {
        /** Settings with the dry run's default limits ({@link DryRunLimiter.Limit#DEFAULT}). */
        public Settings(String bindHost, int httpPort, CertificateFiles httpTls, int opsPort, int grpcPort, Optional<ServerTls> grpcTls,
                        SchedulerConfig scheduler, long maxBodyBytes, int journalWindow, Duration tick, boolean gangMarker, CallerRoles callers) {
            this(bindHost, httpPort, httpTls, opsPort, grpcPort, grpcTls, scheduler, maxBodyBytes, journalWindow, tick, gangMarker, callers,
                    DryRunLimiter.Limit.DEFAULT);
        }

        /** Settings that tell no client certificates apart ({@link CallerRoles#ANY}). */
        public Settings(String bindHost, int httpPort, CertificateFiles httpTls, int opsPort, int grpcPort, Optional<ServerTls> grpcTls,
                        SchedulerConfig scheduler, long maxBodyBytes, int journalWindow, Duration tick, boolean gangMarker) {
            this(bindHost, httpPort, httpTls, opsPort, grpcPort, grpcTls, scheduler, maxBodyBytes, journalWindow, tick, gangMarker, CallerRoles.ANY);
        }

        /** The same settings, client certificates told apart by {@code roles}. */
        public Settings withCallers(CallerRoles roles) {
            return new Settings(bindHost, httpPort, httpTls, opsPort, grpcPort, grpcTls, scheduler, maxBodyBytes, journalWindow, tick, gangMarker, roles,
                    dryRunLimit);
        }

        public static Settings loopback(SchedulerConfig scheduler) {
            return new Settings("127.0.0.1", 0, null, 0, 0, Optional.empty(), scheduler, ServerDefaults.MAX_BODY_BYTES,
                    ServerDefaults.JOURNAL_WINDOW, Duration.ofMillis(200), false);
        }
    }

    private final GangScheduler scheduler;
    private final AllocationJournal journal;
    private final CollectorRegistry registry;
    private final ExtenderHttpServer http;
    private final OpsServer ops;
    private final ManagedGrpcServer grpc;
    /** Who may call each gRPC method, with client certificates required: the verbs kube-scheduler, the dry run an operator. */
    static final Map<String, Set<CallerRoles.Role>> EXTENDER_CALLERS = Map.of(
            "Filter", Set.of(CallerRoles.Role.SCHEDULER), "Prioritize", Set.of(CallerRoles.Role.SCHEDULER),
            "Bind", Set.of(CallerRoles.Role.SCHEDULER), "WhatWouldItTake", Set.of(CallerRoles.Role.OPERATOR));
    /** The allocation stream: the controller only. */
    static final Map<String, Set<CallerRoles.Role>> ALLOCATIONS_CALLERS = Map.of("Watch", Set.of(CallerRoles.Role.CONTROLLER));
    private final AllocationsService allocations;
    private final ExecutorService streamDrains = Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("allocations-drain-", 0).factory());
    private final Ticker ticker;
    private volatile boolean announcedServing;
    /** Done once the verbs' warm-up ended (or at once, without one): until then the process is not ready. */
    private final java.util.concurrent.CompletionStage<?> warmedUp;
    /** Why the first sync has not finished, as the cluster sync last saw it (null: nothing failed); set once by the starter. */
    private volatile java.util.function.Supplier<String> syncTrouble = () -> null;

    /**
     * The scheduling core alone: its journal and the {@link GangScheduler}, which a cluster sync may start feeding
     * (and the first full sync complete) while {@link #ExtenderProcess(Settings, Core, Leadership, CollectorRegistry)}
     * is still starting the servers — the two are independent, and at start both take a second or more.
     */
    public record Core(AllocationJournal journal, GangScheduler scheduler) {
        public static Core of(Settings s, Binder binder) {
            return of(s, binder, Evictor.NONE, DisruptionBudgets.NONE);
        }

        /** A core that may preempt ({@link SchedulerConfig#preemption()}): victims evicted through {@code evictor}. */
        public static Core of(Settings s, Binder binder, Evictor evictor, DisruptionBudgets budgets) {
            return of(s, binder, evictor, budgets, dev.muster.core.scheduler.PodWaker.NONE);
        }

        /** And {@code waker} asked to have kube-scheduler retry pods the filter refused, once the books may admit them. */
        public static Core of(Settings s, Binder binder, Evictor evictor, DisruptionBudgets budgets, dev.muster.core.scheduler.PodWaker waker) {
            AllocationJournal journal = new AllocationJournal(s.journalWindow(), java.time.InstantSource.system());
            return new Core(journal, new GangScheduler(s.scheduler(), binder, evictor, budgets, journal, System::nanoTime, waker));
        }
    }

    public ExtenderProcess(Settings s, Binder binder, Leadership leadership, CollectorRegistry registry) throws IOException {
        this(s, Core.of(s, binder), leadership, registry);
    }

    /** Starts the servers and the ticker around a {@link Core} made from the same settings. */
    public ExtenderProcess(Settings s, Core core, Leadership leadership, CollectorRegistry registry) throws IOException {
        this(s, core, leadership, registry, java.util.concurrent.CompletableFuture.completedFuture(null));
    }

    /**
     * The same, not ready until {@code warmedUp} is done as well as the first sync ({@link dev.muster.server.warmup.VerbWarmUp},
     * run by the starter beside the sync).
     */
    public ExtenderProcess(Settings s, Core core, Leadership leadership, CollectorRegistry registry, java.util.concurrent.CompletionStage<?> warmedUp)
            throws IOException {
        this.warmedUp = java.util.Objects.requireNonNull(warmedUp, "warmedUp");
        this.registry = registry;
        this.journal = core.journal();
        this.scheduler = core.scheduler();
        ExtenderMetrics metrics = new ExtenderMetrics(registry, scheduler, journal);
        OpsEndpoints endpoints = new OpsEndpoints(registry, this::notReadyReason);
        String scheme = s.httpTls() == null ? "http" : "https";
        this.ops = new OpsServer(new InetSocketAddress(s.bindHost(), s.opsPort()), endpoints);
        this.http = new ExtenderHttpServer(new InetSocketAddress(s.bindHost(), s.httpPort()), s.httpTls(), s.callers(),
                new ExtenderVerbs(scheduler, s.scheduler().gangDeadline().plusSeconds(30), s.gangMarker(), ServerDefaults.FILTER_POD_WAIT,
                        metrics.filterErrors()), metrics, endpoints, leadership,
                new LeaderForwarder(s.httpTls(), s.callers(), s.scheduler().gangDeadline().plusSeconds(30)),
                () -> leadership.leading() ? notReadyReason() : null, s.maxBodyBytes());
        http.connectionMetrics().register(registry);
        this.allocations = new AllocationsService(journal, leadership, streamDrains);
        ExtenderGrpcService service = new ExtenderGrpcService(scheduler, leadership, metrics, ServerDefaults.FILTER_POD_WAIT);
        // the dry run plans under the core's lock: limited per caller and per process (after the caller check, if any)
        DryRunLimiter limiter = new DryRunLimiter(s.dryRunLimit(), System::nanoTime);
        io.grpc.BindableService extender = () -> io.grpc.ServerInterceptors.intercept(service, limiter);
        this.grpc = GrpcServers.build(GrpcServers.netty(new InetSocketAddress(s.bindHost(), s.grpcPort()), s.grpcTls()),
                s.grpcTls().filter(ServerTls::requiresClientCertificates).isPresent()
                        ? List.of(CallerCheck.guard(allocations, s.callers(), ALLOCATIONS_CALLERS), CallerCheck.guard(extender, s.callers(), EXTENDER_CALLERS))
                        : List.of(allocations.bindService(), extender.bindService())).start();
        this.ticker = new Ticker("muster-ticker", s.tick(), this::tick);
        LOG.log(System.Logger.Level.INFO, "muster extender listening: verbs " + scheme + " :" + http.port() + ", ops :" + ops.port()
                + ", grpc :" + grpc.port() + "; " + CipherOrder.forThisJvm().describe());
    }

    private void tick() {
        if (!announcedServing && notReadyReason() == null) {
            announcedServing = true;
            grpc.setServing(true);
            LOG.log(System.Logger.Level.INFO, "first full sync done: serving");
        }
        scheduler.expireDue(); // whatever it throws, the Ticker logs and runs it again next time
    }

    private String notReadyReason() {
        if (scheduler.isSynced()) {
            return warmedUp.toCompletableFuture().isDone() ? null : "warming up the verbs (--warm-up)";
        }
        String trouble = syncTrouble.get();
        return trouble == null ? "first sync not finished" : "first sync not finished: " + trouble;
    }

    /**
     * Where readiness learns why the first sync has not finished (e.g. {@code ClusterSync::lastFailure}): until then
     * {@code /readyz} and the verbs answer "not ready: first sync not finished: <that>", so a probe's answer names an
     * API server that cannot be reached.
     */
    public void syncTroubleFrom(java.util.function.Supplier<String> lastFailure) {
        this.syncTrouble = java.util.Objects.requireNonNull(lastFailure, "lastFailure");
    }

    /** Tell open streams to re-check leadership (call on every leadership change). */
    public void leadershipChanged() {
        allocations.servingChanged();
    }

    public GangScheduler scheduler() {
        return scheduler;
    }

    public AllocationJournal journal() {
        return journal;
    }

    public CollectorRegistry registry() {
        return registry;
    }

    public int httpPort() {
        return http.port();
    }

    public int opsPort() {
        return ops.port();
    }

    public int grpcPort() {
        return grpc.port();
    }

    @Override
    public void close() {
        ticker.close();
        http.close();
        ops.close();
        try {
            grpc.shutdown(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        streamDrains.shutdownNow();
    }
}
