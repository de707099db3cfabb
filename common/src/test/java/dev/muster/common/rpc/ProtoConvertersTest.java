package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.AllocationEvent.Builder;
import dev.muster.proto.v1.AllocationSnapshot;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GangStatus;
import dev.muster.proto.v1.PodAllocation;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.ResourceList;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProtoConvertersTest {
    private static final PodRef POD = PodRef.newBuilder().setUid("u-1").setNamespace("ns").setName("p").build();
    private static final GangRef GANG = GangRef.newBuilder().setNamespace("ns").setName("pg").build();

    @Test
    void aPodOutsideAnyGangHasNoGangOnTheWireAndNullInCore() {
        SequencedEvent event = new SequencedEvent(7, 1234, new AllocationEvent.PodAllocated(new PodId("u", "ns", "p"), null, "", "node-1", Resources.ofPod(500, 1 << 30)));

        dev.muster.proto.v1.AllocationEvent wire = ProtoConverters.toProto(event);

        assertThat(wire.getAllocated().hasGang()).isFalse();
        assertThat(wire.getAllocated().getResources().getAmountsMap()).containsExactlyInAnyOrderEntriesOf(
                java.util.Map.of("cpu", 500L, "memory", 1L << 30, "pods", 1L));
        assertThat(((AllocationEvent.PodAllocated) ProtoConverters.fromProto(wire).event()).gang()).isNull();
    }

    @Test
    void queueSharesTravelAsEventsAndInSnapshots() {
        var share = new AllocationEvent.QueueShareChanged("research", Resources.ofPod(24_000, 96L << 30), Resources.ofPod(2_000, 0));
        SequencedEvent event = new SequencedEvent(3, 99, share);

        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(event))).isEqualTo(event);
        var snapshot = new dev.muster.core.stream.AllocationSnapshot(3, java.util.Map.of(), java.util.Map.of(), java.util.Map.of("research", share));
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(snapshot))).isEqualTo(snapshot);
        var nameless = dev.muster.proto.v1.AllocationEvent.newBuilder().setSequence(4)
                .setQueueShare(dev.muster.proto.v1.QueueShare.newBuilder()).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ProtoConverters.fromProto(nameless))
                .hasMessageContaining("queue share without a queue name");
    }

    @Test
    void nullStringsInCoreTravelAsEmpty() {
        var changed = new SequencedEvent(1, 0, new AllocationEvent.GangChanged(new GangKey("ns", "pg"), null, GangState.BOUND, (String) null));

        GangStatus wire = ProtoConverters.toProto(changed).getGangChanged();

        assertThat(wire.getQueue()).isEmpty();
        assertThat(wire.getReason()).isEmpty();
    }

    static Stream<Arguments> invalidMessages() {
        return Stream.of(
                bad("an event without kind", "has no kind", () -> ProtoConverters.fromProto(event(1).build())),
                bad("an event with sequence 0", "sequence must be at least 1", () -> ProtoConverters.fromProto(event(0).setAllocated(allocation(POD)).build())),
                bad("a pod without uid", "has no uid",
                        () -> ProtoConverters.fromProto(event(1).setAllocated(allocation(POD.toBuilder().setUid("").build())).build())),
                bad("a gang without name", "gang ref needs a namespace and a name",
                        () -> ProtoConverters.fromProto(event(1).setGangChanged(GangStatus.newBuilder().setGang(GangRef.newBuilder().setNamespace("ns"))
                                .setState(dev.muster.proto.v1.GangState.GANG_STATE_BOUND)).build())),
                bad("an unspecified gang state", "gang state is GANG_STATE_UNSPECIFIED",
                        () -> ProtoConverters.fromProto(event(1).setGangChanged(GangStatus.newBuilder().setGang(GANG)).build())),
                bad("an empty resource name", "empty resource name",
                        () -> ProtoConverters.fromProto(ResourceList.newBuilder().putAmounts("", 1).build())),
                bad("a negative snapshot sequence", "must not be negative",
                        () -> ProtoConverters.fromProto(AllocationSnapshot.newBuilder().setSequence(-1).build())),
                bad("a gang listed twice in a snapshot", "lists gang ns/pg twice",
                        () -> ProtoConverters.fromProto(AllocationSnapshot.newBuilder().setSequence(3)
                                .addGangs(GangStatus.newBuilder().setGang(GANG).setState(dev.muster.proto.v1.GangState.GANG_STATE_BOUND))
                                .addGangs(GangStatus.newBuilder().setGang(GANG).setState(dev.muster.proto.v1.GangState.GANG_STATE_WAITING))
                                .build())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidMessages")
    void invalidMessagesAreRejectedWithAMessageNamingTheProblem(Supplier<?> conversion, String expectedMessage) {
        assertThatThrownBy(conversion::get).isInstanceOf(ProtoConversionException.class).hasMessageContaining(expectedMessage);
    }

    private static Arguments bad(String name, String message, Supplier<?> conversion) {
        return Arguments.of(Named.of(name, conversion), message);
    }

    private static Builder event(long sequence) {
        return dev.muster.proto.v1.AllocationEvent.newBuilder().setSequence(sequence);
    }

    private static PodAllocation allocation(PodRef pod) {
        return PodAllocation.newBuilder().setPod(pod).setQueue("q").setNode("n").build();
    }
}
