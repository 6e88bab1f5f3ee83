<?php

use Illuminate\Support\Facades\Route;

Route::get('/', function () {
    return format_cents(0);
});
