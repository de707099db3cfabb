package dev.muster.server.grpc;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.proto.v1.BindRequest;
import dev.muster.proto.v1.Container;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.FilterRequest;
import dev.muster.proto.v1.FilterResponse;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.PodSpec;
import dev.muster.server.ExtenderProcess;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.prometheus.client.CollectorRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One shared table: every case runs against a fresh extender over HTTP and another over gRPC, and both
 * must give the same filter answers and bind outcomes.
 */
class TransportParityTest {

    /** A pod in a transport-neutral form. */
    record P(String name, String cpu, String mem, String gang) {
        String uid() {
            return name + "-uid";
        }
    }

    /** One step: filter the pod over all nodes, or bind it to a node. */
    record Step(String verb, P pod, String node) {}

    static Step filter(P p) {
        return new Step("filter", p, null);
    }

    static Step bind(P p, String node) {
        return new Step("bind", p, node);
    }

    static Stream<Arguments> table() {
        P small = new P("small", "1", "1Gi", null);
        P huge = new P("huge", "64", "1Gi", null);
        P nogroup = new P("orphan", "1", "1Gi", "missing");
        P closed = new P("closed-0", "1", "1Gi", "closed");
        P g0 = new P("g-0", "2", "2Gi", "g");
        P g1 = new P("g-1", "2", "2Gi", "g");
        P big0 = new P("big-0", "8", "8Gi", "big");
        return Stream.of(
                Arguments.of("single pod fits everywhere", List.of(filter(small))),
                Arguments.of("single pod too big fails every node", List.of(filter(huge))),
                Arguments.of("pod of a missing PodGroup is unresolvable", List.of(filter(nogroup))),
                Arguments.of("gang in a closed queue is unresolvable", List.of(filter(closed))),
                Arguments.of("gang that cannot fit says what is short", List.of(filter(big0))),
                Arguments.of("gang member reserves and binds at the barrier", List.of(filter(g0), filter(g1), bind(g0, "n0"), bind(g1, "n0"))),
                Arguments.of("bind of an unknown pod fails with a reason", List.of(bind(new P("ghost", "1", "1Gi", null), "n0"))),
                Arguments.of("single pod binds", List.of(filter(small), bind(small, "n1"))));
    }

    private static ExtenderProcess start() throws Exception {
        ExtenderProcess p = new ExtenderProcess(ExtenderProcess.Settings.loopback(SchedulerConfig.DEFAULT), new RecordingBinder(),
                Leadership.ALWAYS, new CollectorRegistry());
        for (int i = 0; i < 3; i++) {
            p.scheduler().upsertNode(node("n" + i, "8", "16Gi"));
        }
        p.scheduler().upsertQueue(queue("default"));
        p.scheduler().upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true));
        p.scheduler().upsertPodGroup(podGroup("default", "g", 2, "default"));
        p.scheduler().upsertPodGroup(podGroup("default", "big", 4, "default"));
        p.scheduler().upsertPodGroup(podGroup("default", "closed", 1, "shut"));
        p.scheduler().markSynced();
        return p;
    }

    private static void informer(ExtenderProcess p, List<Step> steps) {
        for (Step s : steps) {
            if (!s.pod().name().equals("ghost")) { // the cluster shows every pod of the table but the ghost
                var b = dev.muster.core.testing.Fixtures.pod(s.pod().name()).uid(s.pod().uid()).requests(s.pod().cpu(), s.pod().mem());
                p.scheduler().upsertPod((s.pod().gang() == null ? b : b.gang(s.pod().gang())).build());
            }
        }
        if (steps.stream().anyMatch(s -> "big".equals(s.pod().gang()))) {
            for (int i = 1; i < 4; i++) {
                p.scheduler().upsertPod(dev.muster.core.testing.Fixtures.pod("big-" + i).gang("big").requests("8", "8Gi").build());
            }
        }
    }

    private static String httpRun(List<Step> steps) throws Exception {
        try (ExtenderProcess p = start()) {
            informer(p, steps);
            ExtenderClient client = new ExtenderClient("http://127.0.0.1:" + p.httpPort(), java.time.Duration.ofSeconds(30));
            List<String> out = new ArrayList<>();
            List<java.util.concurrent.CompletableFuture<String>> binds = new ArrayList<>();
            for (Step s : steps) {
                Map<String, String> ann = s.pod().gang() == null ? Map.of() : Map.of("scheduling.k8s.io/group-name", s.pod().gang());
                ExtenderClient.PodSpec spec = new ExtenderClient.PodSpec(s.pod().name(), "default", s.pod().uid(),
                        Map.of("cpu", s.pod().cpu(), "memory", s.pod().mem()), ann, "muster");
                if (s.verb().equals("filter")) {
                    ExtenderClient.FilterAnswer f = client.filter(ExtenderClient.podJson(spec), List.of("n0", "n1", "n2"));
                    out.add(describe(f.nodeNames(), f.failed(), f.unresolvable()));
                } else {
                    binds.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> client.bind(s.pod().name(), "default", s.pod().uid(), s.node())));
                }
            }
            for (var b : binds) {
                out.add("bind:" + b.get(30, TimeUnit.SECONDS));
            }
            return String.join("\n", out);
        }
    }

    private static String grpcRun(List<Step> steps) throws Exception {
        try (ExtenderProcess p = start()) {
            informer(p, steps);
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", p.grpcPort()).usePlaintext().build();
            try {
                ExtenderGrpc.ExtenderBlockingStub stub = ExtenderGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
                ExtenderGrpc.ExtenderFutureStub async = ExtenderGrpc.newFutureStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
                List<String> out = new ArrayList<>();
                List<com.google.common.util.concurrent.ListenableFuture<dev.muster.proto.v1.BindResponse>> binds = new ArrayList<>();
                for (Step s : steps) {
                    PodRef ref = PodRef.newBuilder().setUid(s.pod().uid()).setNamespace("default").setName(s.pod().name()).build();
                    if (s.verb().equals("filter")) {
                        PodSpec.Builder spec = PodSpec.newBuilder().setPod(ref).setResourceVersion("1")
                                .addContainers(Container.newBuilder().putRequests("cpu", s.pod().cpu()).putRequests("memory", s.pod().mem()));
                        if (s.pod().gang() != null) {
                            spec.putAnnotations("scheduling.k8s.io/group-name", s.pod().gang());
                        }
                        FilterResponse f = stub.filter(FilterRequest.newBuilder().setPod(spec).addAllNodeNames(List.of("n0", "n1", "n2")).build());
                        out.add(describe(f.getNodeNamesList(), f.getFailedNodesMap(), f.getFailedAndUnresolvableNodesMap()));
                    } else {
                        binds.add(async.bind(BindRequest.newBuilder().setPod(ref).setNode(s.node()).build()));
                    }
                }
                for (var b : binds) {
                    out.add("bind:" + b.get(30, TimeUnit.SECONDS).getError());
                }
                return String.join("\n", out);
            } finally {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static String describe(List<String> feasible, Map<String, String> failed, Map<String, String> unresolvable) {
        return "feasible=" + feasible + " failed=" + new TreeMap<>(failed) + " unresolvable=" + new TreeMap<>(unresolvable);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void httpAndGrpcAnswerAlike(String name, List<Step> steps) throws Exception {
        String http = httpRun(steps);
        String grpc = grpcRun(steps);
        assertThat(grpc).isEqualTo(http);
        assertThat(http).isNotBlank();
    }

    @Test
    void grpcRejectsBadInputWithInvalidArgumentNamingTheField() throws Exception {
        try (ExtenderProcess p = start()) {
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", p.grpcPort()).usePlaintext().build();
            try {
                ExtenderGrpc.ExtenderBlockingStub stub = ExtenderGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
                PodSpec bad = PodSpec.newBuilder().setPod(PodRef.newBuilder().setUid("u").setNamespace("d").setName("n"))
                        .addContainers(Container.newBuilder().putRequests("cpu", "lots")).build();
                assertThatStatus(() -> stub.filter(FilterRequest.newBuilder().setPod(bad).build()), "INVALID_ARGUMENT", "containers[0].requests[cpu]");
                assertThatStatus(() -> stub.filter(FilterRequest.newBuilder().build()), "INVALID_ARGUMENT", "pod is required");
                assertThatStatus(() -> stub.bind(BindRequest.newBuilder().build()), "INVALID_ARGUMENT", "bind needs");
            } finally {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aCancelledGrpcBindStopsWaitingAndFreesItsSlot() throws Exception {
        try (ExtenderProcess p = start()) {
            P g0 = new P("g-0", "2", "2Gi", "g");
            P g1 = new P("g-1", "2", "2Gi", "g");
            informer(p, List.of(filter(g0), filter(g1)));
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", p.grpcPort()).usePlaintext().build();
            try {
                PodRef ref = PodRef.newBuilder().setUid(g0.uid()).setNamespace("default").setName(g0.name()).build();
                PodSpec spec = PodSpec.newBuilder().setPod(ref).addContainers(Container.newBuilder().putRequests("cpu", "2").putRequests("memory", "2Gi"))
                        .putAnnotations("scheduling.k8s.io/group-name", "g").build();
                FilterResponse f = ExtenderGrpc.newBlockingStub(ch).filter(FilterRequest.newBuilder().setPod(spec).addAllNodeNames(List.of("n0", "n1", "n2")).build());
                String node = f.getNodeNames(0);
                io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
                var pending = ctx.call(() -> ExtenderGrpc.newFutureStub(ch).bind(BindRequest.newBuilder().setPod(ref).setNode(node).build()));
                org.awaitility.Awaitility.await().until(() -> p.scheduler().gang(new dev.muster.core.model.GangKey("default", "g")).waiting() == 1);
                ctx.cancel(null);
                org.awaitility.Awaitility.await().until(() -> p.scheduler().gang(new dev.muster.core.model.GangKey("default", "g")).waiting() == 0);
                assertThat(pending.isCancelled() || pending.isDone()).isTrue();
                boolean slotFree = p.scheduler().ledger().reservation(new dev.muster.core.model.GangKey("default", "g")).slots().stream()
                        .noneMatch(s -> s.state() == dev.muster.core.ledger.Slot.State.CLAIMED);
                assertThat(slotFree).isTrue();
            } finally {
                ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static void assertThatStatus(Runnable call, String code, String message) {
        try {
            call.run();
            throw new AssertionError("expected " + code);
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode().name()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(message);
        }
    }

}
