<?php

namespace App\Models;

use App\Support\HasTimestamps;
use App\Support\Money;

/**
 * An order of one product by a customer.
 */
class Order extends Model
{
    use HasTimestamps;

    public OrderStatus $status = OrderStatus::Open;

    public function __construct(array $attributes = [], private ?Product $product = null)
    {
        parent::__construct($attributes);
    }

    public function total(): Money
    {
        return $this->product->price();
    }

    public function cancel(): void
    {
        if ($this->status->isFinal()) {
            throw new \DomainException('order is ' . $this->status->label());
        }
        $this->status = OrderStatus::Cancelled;
        $this->touch();
    }
}
