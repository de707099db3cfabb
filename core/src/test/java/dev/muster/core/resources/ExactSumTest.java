package dev.muster.core.resources;

import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExactSumTest {
    @Test
    void aSumThatSaturatedReadsTrueAgainOnceWhatWasAddedIsTakenAway() {
        ExactSum sum = new ExactSum();
        Resources huge = req("1", "5E");
        sum.add(huge);
        sum.add(huge);
        assertThat(sum.value().memoryBytes()).isEqualTo(Long.MAX_VALUE); // 10E does not fit in a long: read saturated
        assertThat(huge.plus(huge).minus(huge)).isNotEqualTo(huge); // what saturating arithmetic alone would give back

        sum.subtract(huge);
        assertThat(sum.value()).isEqualTo(huge);
        sum.subtract(huge);
        assertThat(sum.value().isZero()).isTrue();
    }

    @Test
    void manySaturatedAmountsComeBackExactlyInAnyOrder() {
        ExactSum sum = new ExactSum();
        Resources max = Resources.builder().set(ResourceNames.MEMORY_INDEX, Long.MAX_VALUE).build();
        Resources small = req("2", "1Gi");
        for (int i = 0; i < 5; i++) {
            sum.add(max);
        }
        sum.add(small);
        for (int i = 0; i < 5; i++) {
            sum.subtract(max);
        }
        assertThat(sum.value()).isEqualTo(small);
    }
}
