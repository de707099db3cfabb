package dev.muster.controller.stream;

import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.proto.v1.WatchStarted;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fake Allocations server that answers each Watch call from a script (call index, request → what to
 * send), to put the client in front of a misbehaving server. Records the requests. Thread-safe.
 */
final class ScriptedAllocations extends AllocationsGrpc.AllocationsImplBase {
    /** What to do with the n-th call (0-based); the call stays open unless the script closes it. */
    @FunctionalInterface
    interface Script {
        void serve(int call, WatchRequest request, StreamObserver<WatchResponse> out);
    }

    private final Script script;
    private final List<WatchRequest> requests = new ArrayList<>(); // guarded by this

    ScriptedAllocations(Script script) {
        this.script = script;
    }

    @Override
    public void watch(WatchRequest request, StreamObserver<WatchResponse> responseObserver) {
        int index;
        synchronized (this) {
            index = requests.size();
            requests.add(request);
        }
        script.serve(index, request, responseObserver);
    }

    synchronized List<WatchRequest> requests() {
        return List.copyOf(requests);
    }

    static WatchResponse started(String journal, long last) {
        return WatchResponse.newBuilder().setStarted(WatchStarted.newBuilder().setJournalId(journal).setLastSequence(last)).build();
    }

    /** A well-formed event with sequence {@code seq}. */
    static WatchResponse event(long seq) {
        var changed = new AllocationEvent.GangChanged(new GangKey("ns", "pg-" + seq), "default", GangState.ADMITTED, "");
        return WatchResponse.newBuilder().setEvent(ProtoConverters.toProto(new SequencedEvent(seq, 0, changed))).build();
    }

    static WatchResponse snapshot(long seq) {
        return WatchResponse.newBuilder().setSnapshot(ProtoConverters.toProto(new AllocationSnapshot(seq, Map.of(), Map.of()))).build();
    }

    /** Sends started and the events after the request's cursor up to {@code last}, in order, and stays open. */
    static void serveProperly(String journal, long last, WatchRequest request, StreamObserver<WatchResponse> out) {
        out.onNext(started(journal, last));
        for (long s = request.getResumeAfter() + 1; s <= last; s++) {
            out.onNext(event(s));
        }
    }
}
