<?php

namespace App\Support;

/**
 * An amount of money in cents.
 */
final class Money
{
    private function __construct(private int $cents)
    {
    }

    public static function fromCents(int $cents): static
    {
        return new static($cents);
    }

    public function add(Money $other): self
    {
        return self::fromCents($this->cents + $other->cents);
    }

    public function format(): string
    {
        return format_cents($this->cents);
    }
}
