// HTTP client of the users service (the Python FastAPI sample): the orders front end
// reads users and cancels orders through it.
import axios from 'axios';

const usersApi = axios.create({ baseURL: process.env.USERS_API_URL });

/** Fetches one user of the users service. */
export async function fetchUser(userId: number) {
  const response = await usersApi.get(`/users/${userId}`);
  return response.data;
}

/** Cancels an order held by the users service. */
export async function cancelRemoteOrder(orderId: number) {
  return usersApi.patch(`/orders/${orderId}/cancel`);
}

/** Lists the orders of a user. */
export async function remoteOrdersOf(userId: number) {
  const res = await fetch(process.env.USERS_API_URL + '/orders/user/' + userId);
  return res.json();
}
