# Lends books and takes them back.
class LoansController < ApplicationController
  def create
    loan = LoanService.new.lend(params[:book_id], params[:member])
    render_json(loan.due_on)
  end

  def destroy
    service = LoanService.new
    service.give_back(params[:id])
    render_json(:ok)
  end
end
