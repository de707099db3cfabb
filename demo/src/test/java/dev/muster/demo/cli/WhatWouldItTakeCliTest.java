package dev.muster.demo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.testing.ConsoleRun;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.PodAllocation;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.PreemptionKind;
import dev.muster.proto.v1.PreemptionVictim;
import dev.muster.proto.v1.ResourceList;
import dev.muster.proto.v1.VictimUnit;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import dev.muster.proto.v1.WhatWouldItTakeResponse.Verdict;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The dry run's command: what it prints, who it asks (a standby sends it to the leader) and its exit codes. */
class WhatWouldItTakeCliTest {
    private final List<Server> servers = new ArrayList<>();
    private final List<String> asked = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Server s : servers) {
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static PreemptionVictim victim(String gang, String pod, String queue, String node, long cpuMillis) {
        PodAllocation.Builder a = PodAllocation.newBuilder().setPod(PodRef.newBuilder().setUid(pod + "-uid").setNamespace("ml").setName(pod))
                .setQueue(queue).setNode(node).setResources(ResourceList.newBuilder().putAmounts("cpu", cpuMillis).putAmounts("memory", 4L << 30));
        if (gang != null) {
            a.setGang(GangRef.newBuilder().setNamespace("ml").setName(gang));
        }
        return PreemptionVictim.newBuilder().setPod(a).setPriority(gang == null ? 0 : 10).build();
    }

    /** Gang low-a whole (2 pods), low-b's surplus (1 pod), and a single pod, for ml/train-big's 8 pods on 3 nodes. */
    static final WhatWouldItTakeResponse PLAN = WhatWouldItTakeResponse.newBuilder().setVerdict(Verdict.VERDICT_PREEMPT)
            .setKind(PreemptionKind.PREEMPTION_KIND_PRIORITY).setPods(8).setNodes(3)
            .addVictims(VictimUnit.newBuilder().setGang(GangRef.newBuilder().setNamespace("ml").setName("low-b")).setQueue("research").setPriority(10)
                    .setSurplusOnly(true).addPods(victim("low-b", "low-b-3", "research", "n2", 2000)))
            .addVictims(VictimUnit.newBuilder().setQueue("").setPriority(0).addPods(victim(null, "web-1", "", "n2", 500)))
            .addVictims(VictimUnit.newBuilder().setGang(GangRef.newBuilder().setNamespace("ml").setName("low-a")).setQueue("research").setPriority(10)
                    .addPods(victim("low-a", "low-a-1", "research", "n1", 4000)).addPods(victim("low-a", "low-a-0", "research", "n0", 4000)))
            .build();

    @Test
    void aPlanIsATableByQueueAndGangWithEachUnitsPods() {
        String out = WhatWouldItTakeCli.plan(WhatWouldItTakeCli.gangOf("ml/train-big"), PLAN);

        assertThat(out.lines()).containsExactly(
                "ml/train-big: would run by preempting 2 gangs (3 pods) and 1 pod on 3 nodes (priority), placing its 8 pods",
                "QUEUE     VICTIM    EVICTS           PRIORITY  PODS  NODES  ROOM",
                "research  ml/low-a  whole gang       10        2     n0,n1  cpu=8,memory=8Gi",
                "research  ml/low-b  surplus members  10        1     n2     cpu=2,memory=4Gi",
                "-         ml/web-1  single pod       0         1     n2     cpu=0.5,memory=4Gi",
                "  ml/low-a: low-a-0 on n0, low-a-1 on n1",
                "  ml/low-b: low-b-3 on n2");
    }

    @Test
    void otherAnswersAreOneSentence() {
        assertThat(WhatWouldItTakeCli.plan(WhatWouldItTakeCli.gangOf("ml/x"), WhatWouldItTakeResponse.newBuilder()
                .setVerdict(Verdict.VERDICT_NONE_NEEDED).setWhy("gang ml/x fits on free room now").build()))
                .isEqualTo("ml/x: nothing to preempt: gang ml/x fits on free room now\n");
        assertThat(WhatWouldItTakeCli.plan(WhatWouldItTakeCli.gangOf("ml/x"), WhatWouldItTakeResponse.newBuilder()
                .setVerdict(Verdict.VERDICT_CANNOT_RUN).setWhy("gang ml/x may not preempt: has preemptionPolicy Never").build()))
                .isEqualTo("ml/x: cannot run, even with preemption: gang ml/x may not preempt: has preemptionPolicy Never\n");
    }

    /** An extender on a loopback port: the leader answers {@code answer}, a standby redirects to {@code leader}. */
    private String extender(String name, WhatWouldItTakeResponse answer, String leader) throws Exception {
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(new ExtenderGrpc.ExtenderImplBase() {
            @Override
            public void whatWouldItTake(WhatWouldItTakeRequest request, StreamObserver<WhatWouldItTakeResponse> out) {
                synchronized (asked) {
                    asked.add(name + " " + request.getGang().getNamespace() + "/" + request.getGang().getName());
                }
                if (leader != null) {
                    out.onError(LeaderRedirect.notLeader(leader, "the leader is " + leader));
                } else if (request.getGang().getName().equals("nope")) {
                    out.onError(Status.NOT_FOUND.withDescription("muster knows no gang ml/nope (no PodGroup of that name seen)").asRuntimeException());
                } else {
                    out.onNext(answer);
                    out.onCompleted();
                }
            }
        }).build().start();
        servers.add(s);
        return "127.0.0.1:" + s.getPort();
    }

    private static ConsoleRun cli(String... args) throws Exception {
        return ConsoleRun.of((o, e) -> WhatWouldItTakeCli.run(List.of(args), Map.of(), o, e));
    }

    @Test
    void aStandbySendsTheQuestionToTheLeaderWhichAnswers() throws Exception {
        String leader = extender("leader", PLAN, null);
        String standby = extender("standby", null, leader);

        ConsoleRun r = cli("ml/train-big", "--extender", standby);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("ml/train-big: would run by preempting 2 gangs (3 pods) and 1 pod on 3 nodes");
        assertThat(asked).containsExactly("standby ml/train-big", "leader ml/train-big");
    }

    @Test
    void overMutualTlsTheCertificateIsCheckedAgainstTheServerNameGiven(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        dev.muster.common.rpc.TestPki pki = new dev.muster.common.rpc.TestPki(dir, "muster");
        dev.muster.common.rpc.TestPki.Issued server = pki.server("muster-extender");
        dev.muster.common.rpc.TestPki.Issued client = pki.client("someone");
        Server s = dev.muster.common.rpc.GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0),
                java.util.Optional.of(new dev.muster.common.rpc.ServerTls(server.cert(), server.key(), pki.caFile())))
                .addService(new ExtenderGrpc.ExtenderImplBase() {
                    @Override
                    public void whatWouldItTake(WhatWouldItTakeRequest request, StreamObserver<WhatWouldItTakeResponse> out) {
                        out.onNext(WhatWouldItTakeResponse.newBuilder().setVerdict(Verdict.VERDICT_NONE_NEEDED).setWhy("gang ml/x runs").build());
                        out.onCompleted();
                    }
                }).build().start();
        servers.add(s);
        String target = "127.0.0.1:" + s.getPort();

        ConsoleRun ok = cli("ml/x", "--extender", target, "--tls-cert-file", client.cert().toString(), "--tls-key-file", client.key().toString(),
                "--tls-ca-file", pki.caFile().toString(), "--tls-server-name", "localhost");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("ml/x: nothing to preempt: gang ml/x runs\n");

        ConsoleRun wrongName = cli("ml/x", "--extender", target, "--tls-cert-file", client.cert().toString(), "--tls-key-file",
                client.key().toString(), "--tls-ca-file", pki.caFile().toString(), "--tls-server-name", "muster-extender.muster-system.svc");
        assertThat(wrongName.exit()).as("the certificate is not for that name").isEqualTo(1);

        ConsoleRun noCertificate = cli("ml/x", "--extender", target, "--tls-ca-file", pki.caFile().toString());
        assertThat(noCertificate.exit()).as("no client certificate: refused at the handshake").isEqualTo(1);

        ConsoleRun halfTls = cli("ml/x", "--extender", target, "--tls-cert-file", client.cert().toString());
        assertThat(halfTls.exit()).as("a certificate without its key").isEqualTo(2);
        assertThat(halfTls.err()).contains("--tls-key-file missing");
    }

    @Test
    void unknownGangsBadArgumentsAndAnUnreachableExtenderAreExplained() throws Exception {
        String leader = extender("leader", PLAN, null);
        ConsoleRun unknown = cli("ml/nope", "--extender", leader);
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("muster knows no gang ml/nope");

        assertThat(cli().exit()).isEqualTo(2);
        ConsoleRun bad = cli("just-a-name");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("\"just-a-name\" is not NAMESPACE/NAME");

        ConsoleRun down = cli("ml/x", "--extender", "127.0.0.1:1");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach the extender at 127.0.0.1:1");
    }
}
