package dev.muster.bench;

import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.controller.rpc.GrpcChannels;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Measures what slow consumers of the allocation stream cost the extender's heap.
 *
 * <p>For each of 0, 1 and {@code readers} stalled readers: a fresh journal (window {@code window}) and
 * Allocations service on a netty loopback port; the readers open Watch with manual flow control and read
 * nothing (the channel is the production one from {@link GrpcChannels}, default flow-control window);
 * then {@code events} events are appended. Reported: used heap after full GCs, relative to the baseline
 * before the journal existed, and the messages the service handed to the transport per reader. Then one
 * reader starts reading and must end up, through the snapshot(s) it is sent, with exactly the journal's
 * totals.
 *
 * <p>Client and server share the JVM, so the numbers include the client side's unread bytes (bounded by
 * its HTTP/2 window); netty's pooled direct buffers are off-heap and not included.
 *
 * <p>Usage: {@code SlowConsumerHeap [events=1000000] [window=65536] [readers=10]}
 */
public final class SlowConsumerHeap {
    private SlowConsumerHeap() {}

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int window = args.length > 1 ? Integer.parseInt(args[1]) : 65_536;
        int readers = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        System.out.printf("SlowConsumerHeap: %,d events, journal window %,d, JVM %s, max heap %d MiB%n", events, window,
                Runtime.version(), Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("%-18s %16s %16s %22s %18s%n", "stalled readers", "heap before MiB", "heap after MiB", "sent/reader (max)", "caught up right");
        for (int n : new int[] {0, 1, readers}) {
            run(events, window, n);
        }
    }

    private static void run(int events, int window, int readerCount) throws Exception {
        long before = usedHeapAfterGc();
        ExecutorService drain = Executors.newFixedThreadPool(2);
        AllocationJournal journal = new AllocationJournal(window, java.time.InstantSource.system());
        AllocationsService service = new AllocationsService(journal, Leadership.ALWAYS, drain);
        ManagedGrpcServer server = GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0), Optional.empty()), service).start();
        List<ManagedChannel> channels = new ArrayList<>();
        List<StalledReader> readers = new ArrayList<>();
        try {
            for (int i = 0; i < readerCount; i++) {
                ManagedChannel channel = GrpcChannels.open("127.0.0.1:" + server.port(), Optional.empty(), null);
                channels.add(channel);
                readers.add(new StalledReader(channel));
            }
            Random random = new Random(1);
            long bytes = 0;
            for (int i = 0; i < events; i++) {
                AllocationEvent e = event(random, i);
                long seq = journal.append(e);
                if (i % 1000 == 0) {
                    bytes += ProtoConverters.toProto(new SequencedEvent(seq, System.currentTimeMillis(), e)).getSerializedSize();
                }
            }
            Thread.sleep(500); // let the drains settle on the stalled transports before measuring
            long after = usedHeapAfterGc();
            long maxSent = service.subscribers().stream().mapToLong(AllocationsService.Subscriber::messagesSent).max().orElse(0);
            String resync = "-";
            if (!readers.isEmpty()) {
                AllocationSnapshot expected = journal.snapshot();
                StalledReader first = readers.getFirst();
                AllocationSnapshot got = first.readUntil(expected.sequence(), Duration.ofSeconds(60));
                resync = (got != null && got.equals(expected)) + " (" + first.snapshots + " snapshots)";
            }
            System.out.printf("%-18d %16.1f %16.1f %22d %18s%n", readerCount, (before >> 10) / 1024.0, (after >> 10) / 1024.0, maxSent, resync);
            if (readerCount == 0) {
                System.out.printf("  (average event message ~%d bytes: buffering %,d events per reader would take ~%d MiB each)%n",
                        bytes / Math.max(1, events / 1000), events, (bytes / Math.max(1, events / 1000) * events) >> 20);
            }
        } finally {
            for (ManagedChannel c : channels) {
                c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            server.close();
            drain.shutdownNow();
            drain.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static AllocationEvent event(Random random, int i) {
        String queue = "q-" + random.nextInt(8);
        GangKey gang = new GangKey("ns", "pg-" + random.nextInt(500));
        Resources r = Resources.ofPod(100 + random.nextInt(4000), (1L + random.nextInt(64)) << 28);
        PodId pod = new PodId("uid-" + (i >> 1), "ns", "pod-" + (i >> 1));
        return switch (i % 3) {
            case 0 -> new AllocationEvent.PodAllocated(pod, gang, queue, "node-" + random.nextInt(1000), r);
            case 1 -> new AllocationEvent.PodReleased(pod, gang, queue, "node-" + random.nextInt(1000), r);
            default -> new AllocationEvent.GangChanged(gang, queue, GangState.values()[random.nextInt(GangState.values().length)], "");
        };
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * A Watch call that reads nothing until asked to, then folds what it receives. Its fields are confined
     * to the call's callbacks (serialized by gRPC) except the volatile hand-over ones.
     */
    private static final class StalledReader implements ClientResponseObserver<WatchRequest, WatchResponse> {
        private volatile ClientCallStreamObserver<WatchRequest> call;
        private volatile long wantedSequence = -1;
        private final CountDownLatch caughtUp = new CountDownLatch(1);
        private final AllocationTotals totals = new AllocationTotals();
        private long last;
        private volatile int snapshots;

        StalledReader(ManagedChannel channel) {
            AllocationsGrpc.newStub(channel).watch(WatchRequest.newBuilder().build(), this);
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<WatchRequest> requestStream) {
            requestStream.disableAutoRequestWithInitial(0);
            call = requestStream;
        }

        /** Starts reading; returns what was folded once the reader reached {@code sequence}, or null on timeout. */
        AllocationSnapshot readUntil(long sequence, Duration timeout) throws InterruptedException {
            wantedSequence = sequence;
            call.request(Integer.MAX_VALUE);
            if (!caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return null;
            }
            synchronized (totals) {
                return totals.snapshot(last);
            }
        }

        @Override
        public void onNext(WatchResponse value) {
            synchronized (totals) {
                if (value.hasSnapshot()) {
                    AllocationSnapshot s = ProtoConverters.fromProto(value.getSnapshot());
                    totals.reset(s);
                    last = s.sequence();
                    snapshots++;
                } else if (value.hasEvent()) {
                    SequencedEvent e = ProtoConverters.fromProto(value.getEvent());
                    if (e.sequence() != last + 1) {
                        throw new IllegalStateException("event " + e.sequence() + " after " + last);
                    }
                    totals.apply(e.event());
                    last = e.sequence();
                }
                if (last == wantedSequence) {
                    caughtUp.countDown();
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            if (caughtUp.getCount() > 0 && wantedSequence >= 0) {
                System.out.println("  reader failed: " + t);
            }
        }

        @Override
        public void onCompleted() {}
    }
}
