//! Calls the shop service (the C# ASP.NET sample) for the status of a member's orders.

/// Where the shop service listens (from the environment in production).
const SHOP_URL: &str = "http://shop:5000";

/// The status of one order of the shop.
pub async fn order_status(client: &reqwest::Client, order_id: u32) -> reqwest::Result<String> {
    let url = format!("{}/api/v2/orders/{}/status", SHOP_URL, order_id);
    client.get(&url).send().await?.text().await
}

/// What an order of the shop costs.
pub async fn order_total(order_id: u32) -> reqwest::Result<String> {
    reqwest::get(format!("{SHOP_URL}/api/v2/orders/{order_id}/total")).await?.text().await
}
