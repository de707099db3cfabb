package dev.muster.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Node;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A node entry answers fit and score for standard-only requests from its own fields; the answers must be those of the
 * resource vectors (any width, zeros, nodes over-full in one resource through reservations, nodes with a GPU).
 */
class NodeEntryFitPropertiesTest {
    private static final String GPU = "example.com/gpu";

    @Provide
    Arbitrary<Resources> amounts() {
        Arbitrary<Long> small = Arbitraries.longs().between(0, 8);
        Arbitrary<Long> big = Arbitraries.longs().between(0, 64_000);
        return Combinators.combine(big, big, small, small, Arbitraries.longs().between(0, 2))
                .as((cpu, mem, eph, pods, gpu) -> Resources.builder().set(ResourceNames.CPU, cpu).set(ResourceNames.MEMORY, mem)
                        .set(ResourceNames.EPHEMERAL_STORAGE, eph).set(ResourceNames.PODS, pods).set(GPU, gpu).build());
    }

    @Provide
    Arbitrary<Resources> requests() {
        // widths 0..5: trailing zeros are trimmed, so some requests stop before pods or storage
        Arbitrary<Long> amount = Arbitraries.longs().between(0, 9_000);
        return Combinators.combine(amount, amount, Arbitraries.longs().between(0, 3), Arbitraries.longs().between(0, 2),
                        Arbitraries.longs().between(0, 1))
                .as((cpu, mem, eph, pods, gpu) -> Resources.builder().set(ResourceNames.CPU, cpu).set(ResourceNames.MEMORY, mem)
                        .set(ResourceNames.EPHEMERAL_STORAGE, eph).set(ResourceNames.PODS, pods).set(GPU, gpu).build());
    }

    @Property
    void theEntrysFitAndScoreAreTheVectorsOwn(@ForAll("amounts") Resources allocatable, @ForAll("amounts") Resources used,
                                              @ForAll("amounts") Resources reserved, @ForAll("requests") Resources request) {
        Ledger ledger = new Ledger();
        ledger.upsertNode(new Node("fit-n", allocatable, true));
        NodeEntry e = ledger.node("fit-n");
        e.addUsed(used);
        e.addReserved(reserved);

        assertThat(e.accepts(request)).isEqualTo(e.takesPlacements() && request.fitsIn(e.free()));
        for (ScoringPolicy policy : List.of(ScoringPolicy.BINPACK, ScoringPolicy.SPREAD)) {
            assertThat(e.score(policy, request)).isEqualTo(vectorScore(policy, e.allocatable(), e.inUse(), request));
            assertThat(policy.score(e.allocatable(), e.inUse(), request)).isEqualTo(vectorScore(policy, e.allocatable(), e.inUse(), request));
        }
    }

    /** The scoring rule written over whole vectors, as ScoringPolicy documents it: the oracle for both of its paths. */
    private static double vectorScore(ScoringPolicy policy, Resources allocatable, Resources inUse, Resources request) {
        boolean scarceUnasked = false;
        for (int i = ResourceNames.STANDARD_COUNT; i < allocatable.width(); i++) {
            scarceUnasked |= allocatable.get(i) > 0 && request.get(i) == 0;
        }
        double sum = 0;
        int dims = 0;
        for (int i = 0; i < Math.max(request.width(), ResourceNames.MEMORY_INDEX + 1); i++) {
            long cap = allocatable.get(i);
            if (i == ResourceNames.PODS_INDEX || i == ResourceNames.EPHEMERAL_STORAGE_INDEX || cap <= 0
                    || (i > ResourceNames.MEMORY_INDEX && request.get(i) == 0)) {
                continue;
            }
            sum += Math.min(1.0, Math.max(0.0, (double) (inUse.get(i) + request.get(i)) / cap));
            dims++;
        }
        double utilization = dims == 0 ? 0 : sum / dims;
        double score = policy == ScoringPolicy.BINPACK ? utilization : 1.0 - utilization;
        return scarceUnasked ? score / 2 : score;
    }
}
