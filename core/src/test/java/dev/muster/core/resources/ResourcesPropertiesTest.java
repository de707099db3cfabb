package dev.muster.core.resources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.resources.PodRequests.Container;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ResourcesPropertiesTest {

    @Provide
    Arbitrary<Resources> resources() {
        Arbitrary<Long> amount = Arbitraries.longs().between(0, 1L << 40);
        return Combinators.combine(amount, amount, amount, Arbitraries.longs().between(0, 16))
                .as((cpu, mem, eph, gpu) -> Resources.builder().set("cpu", cpu).set("memory", mem)
                        .set("ephemeral-storage", eph).set("example.com/gpu", gpu).build());
    }

    @Property
    void plusThenMinusIsIdentity(@ForAll("resources") Resources a, @ForAll("resources") Resources b) {
        assertThat(a.plus(b).minus(b)).isEqualTo(a);
    }

    @Property
    void plusIsCommutative(@ForAll("resources") Resources a, @ForAll("resources") Resources b) {
        assertThat(a.plus(b)).isEqualTo(b.plus(a));
    }

    @Property
    void fitsExactlyWhenNoShortage(@ForAll("resources") Resources req, @ForAll("resources") Resources free) {
        assertThat(req.fitsIn(free)).isEqualTo(req.shortageAgainst(free).isZero());
    }

    @Property
    void minusNeverThrowsAndMayGoNegative(@ForAll("resources") Resources a, @ForAll("resources") Resources b) {
        Resources d = a.minus(b);
        assertThat(d.plus(b)).isEqualTo(a);
        assertThat(d.nonNegative().anyNegative()).isFalse();
    }

    @Property
    void copiesFittingAreConsistentWithFits(@ForAll("resources") Resources req, @ForAll("resources") Resources free) {
        long copies = req.copiesFittingIn(free);
        if (req.isZero()) {
            assertThat(copies).isEqualTo(Long.MAX_VALUE);
        } else {
            assertThat(copies > 0).isEqualTo(req.fitsIn(free));
            if (copies > 0 && copies < 1_000_000) {
                assertThat(req.times(copies).fitsIn(free)).isTrue();
                assertThat(req.times(copies + 1).fitsIn(free)).isFalse();
            }
        }
    }

    @Property
    void effectiveRequestIsAtLeastEveryPartAndCountsOnePod(@ForAll("resources") Resources a, @ForAll("resources") Resources b,
                                                           @ForAll("resources") Resources init, @ForAll("resources") Resources side) {
        Resources eff = PodRequests.effective(List.of(Container.of(a), Container.of(b)),
                List.of(new Container(side, true), new Container(init, false)), null, null);
        assertThat(a.plus(b).plus(side).with(ResourceNames.PODS_INDEX, 1).fitsIn(eff)).isTrue();
        assertThat(init.plus(side).with(ResourceNames.PODS_INDEX, 1).fitsIn(eff)).isTrue();
        assertThat(eff.pods()).isEqualTo(1);
        assertThat(eff).isEqualTo(a.plus(b).plus(side).max(init.plus(side)).with(ResourceNames.PODS_INDEX, 1));
    }

    @Property
    void quantityRoundTripsThroughFormat(@ForAll("resources") Resources r) {
        for (var e : r.asMap().entrySet()) {
            String text = Quantities.format(e.getKey(), e.getValue());
            assertThat(Quantities.parse(e.getKey(), text)).isEqualTo(e.getValue());
        }
    }
}
