package dev.muster.controller;

import dev.muster.common.config.Durations;
import dev.muster.common.config.ProcessStart;
import dev.muster.common.kube.KubeClients;
import dev.muster.common.leader.KubeLeaseStore;
import dev.muster.common.leader.LeaderCallbacks;
import dev.muster.common.leader.LeaderElector;
import dev.muster.common.ops.OpsEndpoints;
import dev.muster.common.ops.OpsServer;
import dev.muster.common.rpc.CallerCheck;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.tls.CallerRoles;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.controller.stream.ExtenderStream;
import dev.muster.controller.sync.ControllerInformers;
import dev.muster.core.time.Backoff;
import dev.muster.controller.writer.KubeEventRecorder;
import dev.muster.controller.writer.KubeStatusPatcher;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.hotspot.DefaultExports;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller process: the sole writer of Volcano Queue and PodGroup status.
 *
 * <pre>
 *   informers (pods, PodGroups, Queues) ──▶ ClusterObserver ─┐
 *   extender Allocations.Watch ──▶ ExtenderStream ──▶ StreamTracker ─┴─▶ fold ──▶ dirty set ──▶ writer ──▶ merge patch
 *                                                                       └──▶ Queues gRPC (Get/List/Watch/GetGang)
 *   Lease (LeaderElector) ──▶ Controller.setLeading: only a warm leader writes
 * </pre>
 * Start order: metrics and probes, gRPC, informers and the stream (both fold on every replica), the flush loop,
 * then leader election. /readyz and gRPC health turn ready after the first cluster list and stream sync.
 * Shutdown (SIGTERM): one last flush if leading, release the Lease, stop inputs and servers. Flags:
 * {@link ControllerConfig}.
 */
public final class ControllerMain {
    private static final Logger log = LoggerFactory.getLogger(ControllerMain.class);

    private ControllerMain() {}

    public static void main(String[] args) throws Exception {
        ProcessStart.main(args, ControllerMain::run);
    }

    /**
     * Runs the controller until the JVM shuts down; returns at once with the exit code when it cannot start (2: bad
     * flags or no Kubernetes configuration, with one line on {@code err} saying what to pass; 1: it failed to start) or
     * was asked for help.
     */
    static int run(List<String> args, Map<String, String> env, KubeClients.InCluster inCluster, PrintStream out, PrintStream err)
            throws InterruptedException {
        ProcessStart.Begun<ControllerConfig> begun;
        try {
            begun = new ProcessStart("muster-controller", ControllerConfig.usage(), out, err)
                    .begin(args, env, ControllerConfig::parse, ControllerConfig::kubeconfig, inCluster);
        } catch (ProcessStart.Exit e) {
            return e.code();
        }
        Running running;
        try {
            running = start(begun.config(), begun.kube());
        } catch (RuntimeException e) {
            log.error("muster-controller failed to start: {}", e.getMessage(), e);
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "muster-controller-shutdown"));
        stopped.await();
        return 0;
    }

    /** Everything the process started, closed in reverse order. */
    static final class Running implements AutoCloseable {
        private final Controller controller;
        private final OpsServer ops;
        private final ManagedGrpcServer grpc;
        private final ControllerInformers informers;
        private final ExtenderStream stream;
        private final LeaderElector elector;
        private final ExecutorService watchExecutor;

        Running(Controller controller, OpsServer ops, ManagedGrpcServer grpc, ControllerInformers informers, ExtenderStream stream,
                LeaderElector elector, ExecutorService watchExecutor) {
            this.controller = controller;
            this.ops = ops;
            this.grpc = grpc;
            this.informers = informers;
            this.stream = stream;
            this.elector = elector;
            this.watchExecutor = watchExecutor;
        }

        @Override
        public void close() {
            log.info("shutting down");
            try {
                controller.flush(); // a leader writes what is pending before it lets go of the Lease
            } catch (RuntimeException e) {
                log.warn("last flush failed: {}", e.toString());
            }
            if (elector != null) {
                elector.close();
            }
            controller.close();
            informers.close();
            try {
                stream.close();
                grpc.shutdown(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            watchExecutor.shutdownNow();
            ops.close();
        }
    }

    static Running start(ControllerConfig config, KubeClients kube) {
        CollectorRegistry registry = new CollectorRegistry();
        DefaultExports.register(registry);
        ControllerMetrics metrics = new ControllerMetrics(registry);
        ExecutorService watchExecutor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "muster-queues-watch");
            t.setDaemon(true);
            return t;
        });
        // shared by the informers (which keep them current) and the status patcher (which routes each PodGroup by them)
        dev.muster.common.kube.GangClaims gangClaims = new dev.muster.common.kube.GangClaims();
        dev.muster.common.kube.GangApiDiscovery gangApis = new dev.muster.common.kube.GangApiDiscovery(kube.requests());
        Controller controller = new Controller(new Controller.Settings(config.apiQps(), config.apiBurst(), Controller.Settings.WRITE_BACKOFF),
                new KubeStatusPatcher(kube.requests(), System::nanoTime, gangClaims, gangApis),
                new KubeEventRecorder(kube.requests(), gangClaims, gangApis, Clock.systemUTC(), config.podName()), Clock.systemUTC(), System::nanoTime,
                watchExecutor, metrics);
        metrics.bind(controller);

        OpsServer ops;
        try {
            ops = new OpsServer(new InetSocketAddress(config.opsPort()), new OpsEndpoints(registry, controller::notReadyReason));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on --ops-port " + config.opsPort(), e);
        }
        // with client certificates, the read-only Queues API serves operators only (--tls-client-roles)
        boolean mutual = config.grpcTls().filter(dev.muster.common.rpc.ServerTls::requiresClientCertificates).isPresent();
        Set<CallerRoles.Role> operators = Set.of(CallerRoles.Role.OPERATOR);
        ManagedGrpcServer grpc = GrpcServers.build(GrpcServers.netty(new InetSocketAddress(config.grpcPort()), config.grpcTls()),
                List.of(mutual ? CallerCheck.guard(controller.queuesService(), config.callers(),
                        Map.of("Get", operators, "List", operators, "Watch", operators, "GetGang", operators))
                        : controller.queuesService().bindService())).start();
        controller.onReady(() -> grpc.setServing(true));

        ControllerInformers informers = new ControllerInformers(kube.watches(), controller.cluster(), ControllerInformers.DEFAULT_RESYNC,
                gangClaims, gangApis, dev.muster.common.kube.GangApiWatcher.DEFAULT_RECHECK);
        informers.start();
        // --extender-tls-secret: the stream's certificate and CA come from the Secret through the API, so a rotation reaches
        // the next connection within about a second of the API server having it
        Optional<dev.muster.controller.rpc.ClientTls> extenderTls = config.extenderTlsSecret() == null ? config.extenderTls()
                : config.extenderTls().map(t -> t.from(dev.muster.common.kube.TlsSecretWatch.start(kube.requests(), kube.watches(),
                        config.extenderTlsSecret())));
        ExtenderStream stream = new ExtenderStream(config.extenderAddress(), extenderTls, controller.allocations());
        stream.start();
        controller.startFlushing(config.flushInterval());

        LeaderElector elector = null;
        if (config.leaderElect()) {
            elector = new LeaderElector(new KubeLeaseStore(kube.requests(), config.leaseNamespace(), config.leaseName()),
                    config.leaderIdentity(), new LeaderCallbacks() {
                        @Override
                        public void onStartedLeading() {
                            controller.setLeading(true);
                        }

                        @Override
                        public void onStoppedLeading() {
                            controller.setLeading(false);
                        }
                    });
            elector.start();
        } else {
            controller.setLeading(true);
        }
        log.info("muster-controller started: gRPC :{}, ops :{}, extender {}, flush every {}, --api-qps {} --api-burst {}, leader election {}",
                grpc.port(), ops.port(), config.extenderAddress(), Durations.format(config.flushInterval()), config.apiQps(), config.apiBurst(),
                config.leaderElect() ? "on (Lease " + config.leaseNamespace() + "/" + config.leaseName() + ")" : "off");
        return new Running(controller, ops, grpc, informers, stream, elector, watchExecutor);
    }
}
