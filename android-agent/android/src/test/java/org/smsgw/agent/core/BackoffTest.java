package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Random;
import org.junit.Test;

public class BackoffTest {
    static Random fixed(final double value) {
        return new Random() {
            @Override
            public double nextDouble() {
                return value;
            }
        };
    }

    @Test
    public void whenTheRandomIsAtItsTopThenTheCeilingDoublesFromOneSecondUpToSixty() {
        Random top = fixed(0.9999999);
        assertEquals(999, Backoff.delayMs(0, top));
        assertEquals(1999, Backoff.delayMs(1, top));
        assertEquals(31999, Backoff.delayMs(5, top));
        assertEquals(59999, Backoff.delayMs(6, top));
        assertEquals(59999, Backoff.delayMs(1000, top));
    }

    @Test
    public void whenJitterIsFullThenAnyDelayFromZeroIsPossible() {
        assertEquals(0, Backoff.delayMs(10, fixed(0)));
        Random random = new Random(42);
        for (int i = 0; i < 1000; i++) {
            long d = Backoff.delayMs(3, random);
            assertTrue(d >= 0 && d < 8000);
        }
        assertEquals(0, Backoff.delayMs(-5, fixed(0)));
    }
}
