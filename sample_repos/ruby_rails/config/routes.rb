Rails.application.routes.draw do
  root 'books#index'
  resources :books, only: [:index, :show, :create] do
    resources :loans, only: [:create]
    member do
      post :reserve
    end
  end
  namespace :admin do
    resource :report, only: [:show]
  end
  get 'search' => 'books#search'
  delete 'loans/:id', to: 'loans#destroy'
end
