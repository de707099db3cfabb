package dev.muster.server;

import dev.muster.common.config.ProcessStart;
import dev.muster.common.kube.GangApiWatcher;
import dev.muster.common.kube.KubeClients;
import dev.muster.common.leader.KubeLeaseStore;
import dev.muster.common.leader.LeaderCallbacks;
import dev.muster.common.leader.LeaderElector;
import dev.muster.common.rpc.ServerTls;
import dev.muster.common.kube.TlsSecretWatch;
import dev.muster.common.tls.CertificateFiles;
import dev.muster.core.time.Backoff;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.server.bind.BindOptions;
import dev.muster.server.bind.KubeBinder;
import dev.muster.server.evict.KubeDisruptionBudgets;
import dev.muster.server.evict.KubeEvictor;
import dev.muster.server.evict.LeasePreemptionRecords;
import dev.muster.server.leader.Leadership;
import dev.muster.server.sync.ClusterSync;
import dev.muster.server.wake.KubePodWaker;
import dev.muster.server.gate.GateCollector;
import dev.muster.server.gate.KubeGateEvents;
import dev.muster.server.gate.KubeGateLifter;
import dev.muster.core.gang.QueueGate;
import dev.muster.server.wake.WakeCollector;
import dev.muster.server.warmup.VerbWarmUp;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.hotspot.DefaultExports;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The extender as deployed: flags → Kubernetes client → binder and evictor, leader election, the extender process,
 * and cluster sync feeding its ledger (and, with preemption, the PodDisruptionBudgets). Exit code 2 for bad flags (the message names the flag) and for a missing
 * Kubernetes configuration (the message says to pass {@code --kubeconfig}).
 */
public final class ServerMain {
    private static final System.Logger LOG = System.getLogger(ServerMain.class.getName());

    private ServerMain() {}

    public static void main(String[] args) throws Exception {
        ProcessStart.main(args, ServerMain::run);
    }

    /**
     * Runs the extender until the JVM shuts down; returns at once with the exit code when it cannot start (2: bad
     * flags or no Kubernetes configuration, with one line on {@code err} saying what to pass) or was asked for help.
     */
    static int run(List<String> args, Map<String, String> env, KubeClients.InCluster inCluster, PrintStream out, PrintStream err)
            throws Exception {
        ProcessStart.Begun<ServerConfig> begun;
        try {
            begun = new ProcessStart("muster-extender", ServerConfig.usage(), out, err)
                    .begin(args, env, ServerConfig::parse, ServerConfig::kubeconfig, inCluster);
        } catch (ProcessStart.Exit e) {
            return e.code();
        }
        ServerConfig cfg = begun.config();
        KubeClients kube = begun.kube();
        List<String> open = new java.util.ArrayList<>();
        if (cfg.httpTls() == null || !cfg.httpTls().mutual()) {
            open.add("the HTTP verbs");
        }
        if (cfg.grpcTls() == null || !cfg.grpcTls().mutual()) {
            open.add("the gRPC verbs and the allocation stream");
        }
        if (!open.isEmpty()) { // only with --insecure-unauthenticated-verbs: parse refuses this otherwise
            LOG.log(System.Logger.Level.WARNING, "INSECURE (--" + ServerConfig.INSECURE + "): " + String.join(" and ", open)
                    + " serve any client that reaches them, without a client certificate: anyone there can make muster bind pods."
                    + " For development only");
        }
        CollectorRegistry registry = CollectorRegistry.defaultRegistry;
        DefaultExports.initialize();

        AtomicReference<ExtenderProcess> process = new AtomicReference<>();
        LeaderElector elector = null;
        Leadership leadership = Leadership.ALWAYS;
        if (cfg.leaderElect()) {
            elector = new LeaderElector(new KubeLeaseStore(kube.requests(), cfg.leaseNamespace(), cfg.leaseName()), cfg.leaderIdentity(),
                    new LeaderCallbacks() {
                        @Override
                        public void onStartedLeading() {
                            LOG.log(System.Logger.Level.INFO, "leading: answering extender verbs");
                            notifyChange(process);
                        }

                        @Override
                        public void onStoppedLeading() {
                            LOG.log(System.Logger.Level.WARNING, "lost leadership: every waiting and held bind fails now, verbs go to the new leader");
                            ExtenderProcess p = process.get();
                            if (p != null) {
                                p.scheduler().leadershipLost("this muster extender lost its Lease; kube-scheduler retries the pod with the new leader");
                            }
                            notifyChange(process);
                        }

                        @Override
                        public void onNewLeader(String identity) {
                            LOG.log(System.Logger.Level.INFO, "leader is " + identity);
                        }
                    });
            leadership = Leadership.of(elector);
        }
        // every Binding POST first asks whether this process still holds the Lease (time-bounded: a leader that was
        // frozen past its renew deadline does not, whatever its election thread has not noticed yet)
        KubeBinder binder = new KubeBinder(kube.requests(), BindOptions.DEFAULTS, KubeBinder.Encoding.PROTOBUF, leadership::leading);
        SchedulerConfig schedulerConfig = SchedulerConfig.DEFAULT
                .withPolicy(cfg.scoring())
                .withPickNode(cfg.pickNode())
                .withGangDeadline(cfg.gangDeadline())
                .withAdmissionHold(cfg.admissionHold())
                .withSetAsideAfter(cfg.setAsideAfter())
                .withBackoff(Backoff.DEFAULT)
                .withSchedulerName(cfg.schedulerName())
                .withTopologyLevels(TopologyLevels.of(cfg.topologyLevels()))
                .withPreemption(new PreemptionSettings(cfg.preemption(), cfg.reclaim(), cfg.victimMinRuntime(),
                        PreemptionSettings.DEFAULT.margin(), cfg.reclaimBand()));
        // the queue-admission gate: lifted by a JSON patch of the pod (paced, leader-only); holds are added here
        // (QueueGate#withHold) when something else must keep an admitted gang gated
        if (cfg.queueGate()) {
            KubeGateLifter lifter = new KubeGateLifter(kube.requests(), leadership::leading, ServerDefaults.LIFTS_PER_SECOND);
            // gated pods are told what their gang waits for, and when their gate is lifted (Events regarding the pod)
            KubeGateEvents events = new KubeGateEvents(kube.requests(), leadership::leading, cfg.podName(), ServerDefaults.GATE_EVENTS_PER_SECOND);
            new GateCollector(lifter, events).register(registry);
            schedulerConfig = schedulerConfig.withQueueGate(QueueGate.on(lifter).withEvents(events));
        }
        // victims are evicted through the Eviction API, fenced like the binder; PodDisruptionBudgets are watched only
        // when something may be evicted (the chart grants the RBAC for both)
        boolean preempting = schedulerConfig.preemption().any();
        // each decision is recorded before its first eviction in a Lease beside the election's, so that a next leader
        // finishes or rolls back what this one half did; without leader election the next leader is this process
        // started again (after a kill, an eviction or an upgrade), so the decisions are recorded all the same
        KubeEvictor evictor = !preempting ? null : new KubeEvictor(kube.requests(), leadership::leading,
                new LeasePreemptionRecords(kube.requests(), cfg.leaseNamespace(), cfg.leaseName() + "-preemptions", leadership::leading));
        KubeDisruptionBudgets budgets = preempting ? new KubeDisruptionBudgets() : null;
        // --tls-secret: both ports read their material from the Secret through the API, so a rotation reaches them within
        // about a second of the API server having it (the Secret volume follows only on the kubelet's next sync)
        TlsSecretWatch tlsSecret = cfg.tlsSecret() == null ? null : TlsSecretWatch.start(kube.requests(), kube.watches(), cfg.tlsSecret());
        // --scheduler-deployment: kube-scheduler reads its extender CA only at start; the leader restarts it when the CA changes
        // (once this process has loaded the new certificate), and every replica presents the old CA's certificate to
        // kube-scheduler until no pod of it started before the change is left
        CertificateFiles httpFiles = cfg.httpTls() == null ? null
                : new CertificateFiles(cfg.httpTls().certFile(), cfg.httpTls().keyFile(), cfg.httpTls().clientCaFile(), tlsSecret);
        if (cfg.schedulerDeployment() != null) {
            httpFiles.holdOnCaChange(ServerDefaults.SCHEDULER_CA_HOLD);
        }
        dev.muster.server.rollout.SchedulerRollout rollout = cfg.schedulerDeployment() == null ? null
                : new dev.muster.server.rollout.SchedulerRollout(kube.requests(), tlsSecret, cfg.schedulerDeployment(), leadership::leading,
                        dev.muster.server.rollout.SchedulerRollout.Serving.of(httpFiles));
        ExtenderProcess.Settings settings = new ExtenderProcess.Settings("0.0.0.0", cfg.httpPort(),
                httpFiles,
                cfg.opsPort(), cfg.grpcPort(),
                cfg.grpcTls() == null ? Optional.empty()
                        : Optional.of(new ServerTls(cfg.grpcTls().certFile(), cfg.grpcTls().keyFile(), cfg.grpcTls().clientCaFile(), tlsSecret)),
                schedulerConfig, cfg.maxBodyBytes(), cfg.journalWindow(), Duration.ofMillis(200), cfg.gangMarker(), cfg.callers(),
                cfg.dryRunLimit());
        // the first full sync (API discovery, then listing every node and pod) does not need the servers, nor they it:
        // it starts on its own thread at once, so readiness after a (re)start waits for the longer of the
        // two instead of their sum
        // pods the filter refused are woken (a pod status patch, paced, leader-only) when a Queue or PodGroup edit or room a
        // reservation gives back may admit them: kube-scheduler hears of none of these
        KubePodWaker waker = new KubePodWaker(kube.requests(), leadership::leading, ServerDefaults.WAKES_PER_SECOND, ServerDefaults.WAKES_PENDING);
        new WakeCollector(waker).register(registry);
        ExtenderProcess.Core core = preempting ? ExtenderProcess.Core.of(settings, binder, evictor, budgets, waker)
                : ExtenderProcess.Core.of(settings, binder, dev.muster.core.preempt.Evictor.NONE, dev.muster.core.preempt.DisruptionBudgets.NONE, waker);
        // the verbs' warm-up runs beside the first sync (at a restart of a large cluster, while the API server gathers its
        // first answer): readiness waits for both, so kube-scheduler's first batch meets compiled code
        CompletableFuture<Void> warmedUp = warmUp(cfg, schedulerConfig);
        CompletableFuture<ClusterSync> syncing = new CompletableFuture<>();
        Thread.ofPlatform().name("cluster-sync-start").start(() -> {
            try {
                ClusterSync started = new ClusterSync(kube.watches(), core.scheduler(), ClusterSync.DEFAULT_RESYNC, cfg.schedulerName(),
                        GangApiWatcher.DEFAULT_RECHECK, budgets);
                started.start();
                syncing.complete(started);
            } catch (Throwable t) {
                syncing.completeExceptionally(t);
            }
        });
        try {
            process.set(new ExtenderProcess(settings, core, leadership, registry, warmedUp));
        } catch (IOException | RuntimeException e) {
            syncing.thenAccept(ClusterSync::close);
            throw e;
        }
        syncing.thenAccept(started -> process.get().syncTroubleFrom(started::lastFailure));
        ClusterSync sync;
        try {
            sync = syncing.join();
        } catch (CompletionException e) {
            process.get().close();
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        // all-or-nothing scale-up (--provisioning): gangs that need more nodes ask cluster-autoscaler for all of them at once
        dev.muster.server.provision.ProvisionSync provisioning = !cfg.provisioning().enabled() ? null
                : new dev.muster.server.provision.ProvisionSync(kube.requests(), kube.watches(), core.scheduler(),
                        new dev.muster.core.provision.Provisioning(cfg.provisioning().settings()), leadership::leading, registry);
        if (provisioning != null) {
            provisioning.start();
        }
        if (rollout != null) {
            rollout.start();
        }
        if (elector != null) {
            elector.start();
        }
        CountDownLatch stopped = new CountDownLatch(1);
        LeaderElector finalElector = elector;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.log(System.Logger.Level.INFO, "shutting down");
            if (finalElector != null) {
                finalElector.close(); // releases the Lease: a standby takes over at once
            }
            if (provisioning != null) {
                provisioning.close();
            }
            sync.close();
            process.get().close();
            binder.close();
            if (evictor != null) {
                evictor.close();
            }
            waker.close();
            if (rollout != null) {
                rollout.close();
            }
            stopped.countDown();
        }, "muster-shutdown"));
        stopped.await();
        return 0;
    }

    /** Done once {@link VerbWarmUp} ran (on a thread of its own) or failed; at once with {@code --warm-up=false}. */
    private static CompletableFuture<Void> warmUp(ServerConfig cfg, SchedulerConfig schedulerConfig) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!cfg.warmUp()) {
            done.complete(null);
            return done;
        }
        Thread.ofPlatform().daemon().name("verb-warm-up").start(() -> {
            try {
                LOG.log(System.Logger.Level.INFO, "verbs warmed up: " + VerbWarmUp.run(schedulerConfig, cfg.gangMarker(), VerbWarmUp.Size.DEFAULT));
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "the verbs' warm-up failed; serving without it", e);
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    private static void notifyChange(AtomicReference<ExtenderProcess> process) {
        ExtenderProcess p = process.get();
        if (p != null) {
            p.leadershipChanged();
        }
    }
}
