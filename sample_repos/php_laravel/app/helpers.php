<?php

/**
 * Formats an amount of cents as a price with two decimals.
 */
function format_cents(int $cents): string
{
    return number_format($cents / 100, 2);
}
