package dev.muster.server.grpc;

import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.VerbRefusedException;
import dev.muster.proto.v1.BindRequest;
import dev.muster.proto.v1.BindResponse;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.FilterRequest;
import dev.muster.proto.v1.FilterResponse;
import dev.muster.proto.v1.HostScore;
import dev.muster.proto.v1.PrioritizeRequest;
import dev.muster.proto.v1.PrioritizeResponse;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import dev.muster.server.leader.Leadership;
import dev.muster.server.http.ExtenderMetrics;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The extender verbs over gRPC: the same {@link GangScheduler} decisions as the HTTP verbs. Errors are
 * status codes with readable messages: INVALID_ARGUMENT for a malformed request, FAILED_PRECONDITION for a filter about a
 * pod Muster may not act on (not seen in the cluster — after waiting for it, like the HTTP filter — another scheduler's,
 * bound, being deleted), UNAVAILABLE (with the
 * leader's address in {@code muster-leader-address}) when this process is a standby or not yet synced, NOT_FOUND for a dry
 * run ({@code WhatWouldItTake}) about a gang Muster does not know. The dry run changes nothing.
 * Bind completes asynchronously from the gang barrier — no thread waits — and a cancelled call (client
 * gone, deadline passed) withdraws the bind so its slot is free for another try. Thread-safe.
 */
public final class ExtenderGrpcService extends ExtenderGrpc.ExtenderImplBase {
    private final GangScheduler scheduler;
    private final Leadership leadership;
    /** Runs what follows a filter's wait for its pod: a virtual thread each (they are few, and short). */
    private static final java.util.concurrent.Executor AFTER_WAIT = r -> Thread.ofVirtual().name("muster-grpc-filter").start(r);

    private final ExtenderMetrics metrics;
    private final java.time.Duration podWait;

    public ExtenderGrpcService(GangScheduler scheduler, Leadership leadership, ExtenderMetrics metrics) {
        this(scheduler, leadership, metrics, java.time.Duration.ZERO);
    }

    /** @param podWait how long a filter about a pod the informers have not shown yet waits for it ({@link GangScheduler#whenFilterable}), and for the admission hold to end */
    public ExtenderGrpcService(GangScheduler scheduler, Leadership leadership, ExtenderMetrics metrics, java.time.Duration podWait) {
        this.scheduler = scheduler;
        this.leadership = leadership;
        this.metrics = metrics;
        this.podWait = podWait;
    }

    @Override
    public void filter(FilterRequest request, StreamObserver<FilterResponse> out) {
        ExtenderMetrics.Timer timer = metrics.start("filter", "grpc");
        Pod pod = admit(request.hasPod() ? request.getPod() : null, out, timer);
        if (pod == null) {
            return;
        }
        try {
            answer(scheduler.filter(pod, request.getNodeNamesList(), request.getSoftPreferences()), out, timer);
        } catch (VerbRefusedException e) {
            java.util.concurrent.CompletableFuture<Boolean> ended = podWait.isZero() ? null : scheduler.whenFilterable(e.cause(), pod.uid(), podWait);
            if (ended == null) {
                refused(e, out, timer);
                return;
            }
            // no thread waits: the pod's arrival, the end of the admission hold (or the wait's end) answers, on a virtual
            // thread (not the informer's)
            ended.whenCompleteAsync((seen, error) -> {
                boolean came = Boolean.TRUE.equals(seen);
                if (e.cause() == VerbRefusedException.Cause.NOT_SEEN) {
                    metrics.filterErrors().waited(came);
                }
                if (!came) {
                    refused(new VerbRefusedException(e.cause(), e.getMessage() + " (waited up to " + podWait.toMillis() + " ms for it)"), out, timer);
                    return;
                }
                try {
                    answer(scheduler.filter(pod, request.getNodeNamesList(), request.getSoftPreferences()), out, timer);
                } catch (VerbRefusedException again) {
                    refused(again, out, timer);
                }
            }, AFTER_WAIT);
        }
    }

    private static void answer(FilterResult r, StreamObserver<FilterResponse> out, ExtenderMetrics.Timer timer) {
        timer.done(r.feasible().isEmpty() ? (r.unresolvable().isEmpty() ? "unfit" : "unresolvable") : "fit");
        out.onNext(FilterResponse.newBuilder().addAllNodeNames(r.feasible()).putAllFailedNodes(r.failed())
                .putAllFailedAndUnresolvableNodes(r.unresolvable()).build());
        out.onCompleted();
    }

    private void refused(VerbRefusedException e, StreamObserver<FilterResponse> out, ExtenderMetrics.Timer timer) {
        metrics.filterErrors().error(e.cause().label(), e.getMessage());
        timer.done("refused");
        out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
    }

    @Override
    public void prioritize(PrioritizeRequest request, StreamObserver<PrioritizeResponse> out) {
        ExtenderMetrics.Timer timer = metrics.start("prioritize", "grpc");
        Pod pod = admit(request.hasPod() ? request.getPod() : null, out, timer);
        if (pod == null) {
            return;
        }
        List<String> names = request.getNodeNamesList();
        int[] scores = scheduler.prioritize(pod, names);
        PrioritizeResponse.Builder b = PrioritizeResponse.newBuilder();
        for (int i = 0; i < scores.length; i++) {
            b.addScores(HostScore.newBuilder().setHost(names.get(i)).setScore(scores[i]));
        }
        timer.done("scored");
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void bind(BindRequest request, StreamObserver<BindResponse> out) {
        ExtenderMetrics.Timer timer = metrics.start("bind", "grpc");
        if (!serving(out, timer)) {
            return;
        }
        if (!request.hasPod() || request.getPod().getUid().isEmpty() || request.getPod().getName().isEmpty()
                || request.getPod().getNamespace().isEmpty() || request.getNode().isEmpty()) {
            timer.done("bad-request");
            out.onError(Status.INVALID_ARGUMENT.withDescription("bind needs pod.uid, pod.name, pod.namespace and node").asRuntimeException());
            return;
        }
        PodId pod = new PodId(request.getPod().getUid(), request.getPod().getNamespace(), request.getPod().getName());
        CompletableFuture<BindResult> pending = scheduler.bind(pod, request.getNode());
        ServerCallStreamObserver<BindResponse> call = (ServerCallStreamObserver<BindResponse>) out;
        call.setOnCancelHandler(() -> {
            if (!pending.isDone()) {
                scheduler.cancelBind(pod);
                timer.done("cancelled");
            }
        });
        pending.whenComplete((result, error) -> {
            if (call.isCancelled()) {
                return;
            }
            BindResult r = error != null ? BindResult.failed(String.valueOf(error)) : result;
            timer.done(r.ok() ? "bound" : "failed");
            call.onNext(BindResponse.newBuilder().setError(r.error()).build());
            call.onCompleted();
        });
    }

    /** The preemption dry run: read-only, answered by the leader like the verbs (a standby redirects). */
    @Override
    public void whatWouldItTake(WhatWouldItTakeRequest request, StreamObserver<WhatWouldItTakeResponse> out) {
        ExtenderMetrics.Timer timer = metrics.start("what-would-it-take", "grpc");
        if (!serving(out, timer)) {
            return;
        }
        if (!request.hasGang() || request.getGang().getNamespace().isEmpty() || request.getGang().getName().isEmpty()) {
            timer.done("bad-request");
            out.onError(Status.INVALID_ARGUMENT.withDescription("what-would-it-take needs gang.namespace and gang.name").asRuntimeException());
            return;
        }
        GangKey gang = ProtoConverters.fromProto(request.getGang());
        PreemptionAdvice advice = scheduler.preemptionAdvice(gang);
        if (advice instanceof PreemptionAdvice.Unknown) {
            timer.done("unknown");
            out.onError(Status.NOT_FOUND.withDescription("muster knows no gang " + gang + " (no PodGroup of that name seen)").asRuntimeException());
            return;
        }
        timer.done(switch (advice) {
            case PreemptionAdvice.NoneNeeded n -> "none-needed";
            case PreemptionAdvice.Preempt p -> "preempt";
            default -> "cannot-run";
        });
        out.onNext(AdviceMessages.response(advice));
        out.onCompleted();
    }

    private <T> Pod admit(dev.muster.proto.v1.PodSpec spec, StreamObserver<T> out, ExtenderMetrics.Timer timer) {
        if (!serving(out, timer)) {
            return null;
        }
        if (spec == null) {
            timer.done("bad-request");
            out.onError(Status.INVALID_ARGUMENT.withDescription("pod is required").asRuntimeException());
            return null;
        }
        try {
            return GangMembership.servedBy(ProtoPods.toPod(spec), spec.getSchedulerName(), scheduler.config().schedulerName());
        } catch (IllegalArgumentException e) {
            timer.done("bad-request");
            out.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            return null;
        }
    }

    private <T> boolean serving(StreamObserver<T> out, ExtenderMetrics.Timer timer) {
        if (!leadership.leading()) {
            timer.done("not-leader");
            Leadership.Route route = leadership.route();
            out.onError(LeaderRedirect.notLeader(route.grpcTarget(), route.describe()));
            return false;
        }
        if (!scheduler.isSynced()) {
            timer.done("not-ready");
            out.onError(Status.UNAVAILABLE.withDescription("muster extender not ready: first sync not finished").asRuntimeException());
            return false;
        }
        return true;
    }
}
