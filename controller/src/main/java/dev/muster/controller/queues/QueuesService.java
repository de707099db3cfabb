package dev.muster.controller.queues;

import dev.muster.core.model.GangKey;
import dev.muster.core.status.PodGroupView;
import dev.muster.core.status.QueueView;
import dev.muster.proto.v1.GangInfo;
import dev.muster.proto.v1.GetGangRequest;
import dev.muster.proto.v1.GetQueueRequest;
import dev.muster.proto.v1.ListGangsRequest;
import dev.muster.proto.v1.ListGangsResponse;
import dev.muster.proto.v1.ListQueuesRequest;
import dev.muster.proto.v1.ListQueuesResponse;
import dev.muster.proto.v1.QueueInfo;
import dev.muster.proto.v1.QueuesGrpc;
import dev.muster.proto.v1.WatchQueuesRequest;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * {@code muster.v1.Queues}, served from the fold. Get/List/GetGang/ListGangs answer from immutable views; Watch is
 * handed to the {@link QueueWatchHub}. Bad requests are INVALID_ARGUMENT, unknown objects NOT_FOUND. Thread-safe
 * (stateless apart from its thread-safe collaborators).
 */
public final class QueuesService extends QueuesGrpc.QueuesImplBase {
    private final QueueViews views;
    private final QueueWatchHub hub;

    public QueuesService(QueueViews views, QueueWatchHub hub) {
        this.views = views;
        this.hub = hub;
    }

    @Override
    public void get(GetQueueRequest request, StreamObserver<QueueInfo> response) {
        if (request.getName().isEmpty()) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("name is required").asRuntimeException());
            return;
        }
        QueueView v = views.queue(request.getName());
        if (v == null) {
            response.onError(Status.NOT_FOUND.withDescription("queue " + request.getName() + " not found").asRuntimeException());
            return;
        }
        response.onNext(QueueMessages.queue(v));
        response.onCompleted();
    }

    @Override
    public void list(ListQueuesRequest request, StreamObserver<ListQueuesResponse> response) {
        ListQueuesResponse.Builder b = ListQueuesResponse.newBuilder();
        for (QueueView v : views.queues()) {
            b.addQueues(QueueMessages.queue(v));
        }
        response.onNext(b.build());
        response.onCompleted();
    }

    @Override
    public void watch(WatchQueuesRequest request, StreamObserver<QueueInfo> response) {
        hub.subscribe(request.getName(), (ServerCallStreamObserver<QueueInfo>) response);
    }

    @Override
    public void getGang(GetGangRequest request, StreamObserver<GangInfo> response) {
        if (request.getGang().getNamespace().isEmpty() || request.getGang().getName().isEmpty()) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("gang.namespace and gang.name are required").asRuntimeException());
            return;
        }
        GangKey key = new GangKey(request.getGang().getNamespace(), request.getGang().getName());
        PodGroupView v = views.gang(key);
        if (v == null) {
            response.onError(Status.NOT_FOUND.withDescription("podgroup " + key + " not found").asRuntimeException());
            return;
        }
        response.onNext(QueueMessages.gang(v));
        response.onCompleted();
    }

    @Override
    public void listGangs(ListGangsRequest request, StreamObserver<ListGangsResponse> response) {
        ListGangsResponse.Builder b = ListGangsResponse.newBuilder();
        for (PodGroupView v : views.gangs()) {
            b.addGangs(QueueMessages.gang(v));
        }
        response.onNext(b.build());
        response.onCompleted();
    }
}
