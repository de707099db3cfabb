package dev.muster.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** core → proto → core is the identity, for every value the stream carries. */
class ProtoConvertersPropertiesTest {

    @Property
    void resourcesRoundTrip(@ForAll("resources") Resources resources) {
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(resources))).isEqualTo(resources);
    }

    @Property
    void eventsRoundTrip(@ForAll("sequencedEvents") SequencedEvent event) {
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(event))).isEqualTo(event);
    }

    @Property
    void eventsSurviveTheWire(@ForAll("sequencedEvents") SequencedEvent event) throws Exception {
        byte[] wire = ProtoConverters.toProto(event).toByteArray();
        assertThat(ProtoConverters.fromProto(dev.muster.proto.v1.AllocationEvent.parseFrom(wire))).isEqualTo(event);
    }

    @Property
    void snapshotsRoundTrip(@ForAll("snapshots") AllocationSnapshot snapshot) {
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(snapshot))).isEqualTo(snapshot);
    }

    @Property
    void gangStatesRoundTrip(@ForAll GangState state) {
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(state))).isEqualTo(state);
    }

    @Provide
    Arbitrary<Resources> resources() {
        Arbitrary<String> names = Arbitraries.of("cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu", "example.com/fpga");
        Arbitrary<Long> amounts = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-5, 5), Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L));
        return Arbitraries.maps(names, amounts).ofMaxSize(6).map(Resources::of);
    }

    @Provide
    Arbitrary<SequencedEvent> sequencedEvents() {
        return Combinators.combine(Arbitraries.longs().greaterOrEqual(1), Arbitraries.longs(), events()).as(SequencedEvent::new);
    }

    @Provide
    Arbitrary<AllocationSnapshot> snapshots() {
        Arbitrary<Map<String, Resources>> byQueue = Arbitraries.maps(queues(), resources()).ofMaxSize(5);
        Arbitrary<AllocationSnapshot.GangStatus> status =
                Combinators.combine(queues(), Arbitraries.of(GangState.class), refusals()).as(AllocationSnapshot.GangStatus::new);
        Arbitrary<Map<GangKey, AllocationSnapshot.GangStatus>> gangs = Arbitraries.maps(gangs(), status).ofMaxSize(8);
        return Combinators.combine(Arbitraries.longs().greaterOrEqual(0), byQueue, gangs).as(AllocationSnapshot::new);
    }

    private Arbitrary<AllocationEvent> events() {
        Arbitrary<AllocationEvent> allocated = Combinators.combine(pods(), gangs().injectNull(0.3), queues(), nodes(), resources())
                .as(AllocationEvent.PodAllocated::new);
        Arbitrary<AllocationEvent> released = Combinators.combine(pods(), gangs().injectNull(0.3), queues(), nodes(), resources())
                .as(AllocationEvent.PodReleased::new);
        Arbitrary<AllocationEvent> changed = Combinators.combine(gangs(), queues(), Arbitraries.of(GangState.class), refusals())
                .as((g, q, st, why) -> new AllocationEvent.GangChanged(g, q, st, why));
        return Arbitraries.oneOf(allocated, released, changed);
    }

    private Arbitrary<PodId> pods() {
        Arbitrary<String> uid = Arbitraries.strings().alpha().numeric().withChars('-').ofMinLength(1).ofMaxLength(36);
        return Combinators.combine(uid, names(), names()).as(PodId::new);
    }

    private Arbitrary<GangKey> gangs() {
        return Combinators.combine(names().filter(s -> !s.isEmpty()), names().filter(s -> !s.isEmpty())).as(GangKey::new);
    }

    private Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('a', 'z').withChars('-', '.').ofMaxLength(20);
    }

    private Arbitrary<String> queues() {
        return Arbitraries.oneOf(Arbitraries.just(""), names());
    }

    private Arbitrary<String> nodes() {
        return names();
    }

    /** Every cause, with any text: the cause and the text travel separately and both come back. */
    private Arbitrary<dev.muster.core.model.Refusal> refusals() {
        return Combinators.combine(Arbitraries.of(dev.muster.core.model.Refusal.Cause.class), reasons()).as(dev.muster.core.model.Refusal::new);
    }

    private Arbitrary<String> reasons() {
        return Arbitraries.strings().ofMaxLength(60); // any unicode: reasons are for people
    }
}
