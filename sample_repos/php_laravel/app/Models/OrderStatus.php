<?php

namespace App\Models;

/**
 * Where an order is in its life.
 */
enum OrderStatus: string
{
    case Open = 'open';
    case Paid = 'paid';
    case Cancelled = 'cancelled';

    public function label(): string
    {
        return ucfirst($this->value);
    }

    public function isFinal(): bool
    {
        return $this !== self::Open;
    }
}
