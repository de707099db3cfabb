package dev.muster.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Muster as a user runs it against a cluster the chart is installed in ({@link MusterInstall}): the extender and the
 * controller from their packaged jars with their ServiceAccounts' tokens, and an unmodified kube-scheduler configured
 * from {@code extender-config/scheduler-config-insecure.yaml} with the extender on loopback and the feature gates of the
 * chart's Deployment, without the chart's mTLS ({@code --insecure-unauthenticated-verbs}: the tests call the verbs
 * themselves; MutualTlsE2eTest runs the mTLS). Closed in reverse order.
 */
public final class MusterStack implements AutoCloseable {
    private final MusterProcess extender;
    private final MusterProcess controller;
    private final KubeScheduler scheduler;
    private final int extenderHttpPort;
    private final int extenderGrpcPort;

    private MusterStack(MusterProcess extender, MusterProcess controller, KubeScheduler scheduler, int extenderHttpPort, int extenderGrpcPort) {
        this.extender = extender;
        this.controller = controller;
        this.scheduler = scheduler;
        this.extenderHttpPort = extenderHttpPort;
        this.extenderGrpcPort = extenderGrpcPort;
    }

    /**
     * Starts the extender (and waits until it is ready), the controller fed by its allocation stream, then kube-scheduler.
     *
     * @param repo              the repository's root (jars under server/target and controller/target, extender-config/)
     * @param extraExtenderArgs further extender flags (e.g. {@code --topology-levels=...})
     * @param logDir            where the processes' logs go
     */
    public static MusterStack start(Path repo, String version, ControlPlane cp, MusterInstall install, List<String> extraExtenderArgs,
                                    Path logDir) {
        return start(repo, version, cp, install, extraExtenderArgs, install.schedulerFlags("--feature-gates="), logDir);
    }

    /**
     * As {@link #start(Path, String, ControlPlane, MusterInstall, List, Path)}, with kube-scheduler's flags given.
     *
     * @param schedulerArgs kube-scheduler's further flags (the chart's Deployment's feature gates, or others to try)
     */
    public static MusterStack start(Path repo, String version, ControlPlane cp, MusterInstall install, List<String> extraExtenderArgs,
                                    List<String> schedulerArgs, Path logDir) {
        int httpPort = ControlPlane.freePort();
        int grpcPort = ControlPlane.freePort();
        List<String> extenderArgs = new ArrayList<>(List.of("--kubeconfig=" + install.kubeconfigFor("extender"), "--http-port=" + httpPort,
                "--grpc-port=" + grpcPort, "--lease-namespace=" + MusterInstall.NAMESPACE,
                // plain HTTP keeps the tests' own calls to the verbs simple; MutualTlsE2eTest runs the chart's mTLS
                "--insecure-unauthenticated-verbs"));
        extenderArgs.addAll(extraExtenderArgs);
        MusterProcess extender = MusterProcess.start("extender", MusterProcess.Program.EXTENDER, repo, version, extenderArgs, logDir,
                ControlPlane.freePort());
        MusterProcess controller = MusterProcess.start("controller", MusterProcess.Program.CONTROLLER, repo, version, List.of(
                "--kubeconfig=" + install.kubeconfigFor("controller"), "--extender-address=127.0.0.1:" + grpcPort,
                "--grpc-port=" + ControlPlane.freePort(), "--lease-namespace=" + MusterInstall.NAMESPACE), logDir, ControlPlane.freePort());
        KubeScheduler scheduler = KubeScheduler.start(cp, repo.resolve("extender-config/scheduler-config-insecure.yaml"), "http://127.0.0.1:" + httpPort,
                cfg -> {}, "kube-scheduler", schedulerArgs);
        return new MusterStack(extender, controller, scheduler, httpPort, grpcPort);
    }

    public MusterProcess extender() {
        return extender;
    }

    public MusterProcess controller() {
        return controller;
    }

    public KubeScheduler scheduler() {
        return scheduler;
    }

    public int extenderHttpPort() {
        return extenderHttpPort;
    }

    /** The extender's gRPC port (plaintext: the verbs, the dry run and the allocation stream). */
    public int extenderGrpcPort() {
        return extenderGrpcPort;
    }

    @Override
    public void close() {
        scheduler.close();
        controller.close();
        extender.close();
    }
}
