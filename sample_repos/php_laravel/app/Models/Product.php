<?php

namespace App\Models;

use App\Support\HasTimestamps;
use App\Support\Money;

/**
 * A product for sale, priced in cents.
 */
class Product extends Model
{
    use HasTimestamps;

    public function price(): Money
    {
        return Money::fromCents($this->attributes['price'] ?? 0);
    }

    public function rename(string $name): void
    {
        $this->fill(['name' => $name]);
        $this->touch();
        $this->save();
    }

    public function save(): bool
    {
        $this->touch();
        return parent::save();
    }
}
