package dev.muster.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FirstFewTest {
    @Test
    void listsAllWhenTheyFitAndCountsTheRestOtherwise() {
        assertThat(FirstFew.of(List.of(), 3)).isEmpty();
        assertThat(FirstFew.of(List.of("a"), 3)).isEqualTo("a");
        assertThat(FirstFew.of(List.of("a", "b", "c"), 3)).isEqualTo("a, b, c");
        assertThat(FirstFew.of(List.of("a", "b", "c", "d", "e"), 3)).isEqualTo("a, b, c and 2 more");
        assertThat(FirstFew.of(List.of(1, 2), 1)).isEqualTo("1 and 1 more");
        assertThat(FirstFew.shown(List.of("n1", "n2"), 7)).as("shown out of a total kept elsewhere").isEqualTo("n1, n2 and 5 more");
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> FirstFew.of(List.of("a"), 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
    }
}
